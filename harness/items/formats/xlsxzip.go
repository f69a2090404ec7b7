package formats

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/vidscreen/vidscreen/harness"
	"github.com/vidscreen/vidscreen/harness/items"
	"github.com/vidscreen/vidscreen/harness/items/records"
)

// checkWorkbookZip reads every entry of the .xlsx at path to its end, so
// that archive/zip checks each entry's CRC-32, before the workbook is
// trusted. excelize discards the zip's checksum error (lib.go's
// readXML: `_, _ = io.Copy(buff, rc)`): a one-bit flip in a sheet then
// imports with rows lost or text changed and exit 0. A file cut short
// has no readable zip directory, and is said to be damaged rather than
// "not a workbook".
func checkWorkbookZip(path string) error {
	zr, err := zip.OpenReader(path)
	if err != nil {
		if head, herr := items.Head(path); herr != nil || !bytes.HasPrefix(head, []byte("PK\x03\x04")) {
			return wrongLayout(path) // no zip at all: say what it is
		}
		return &harness.ParseError{File: path, Err: records.Reword(harness.ErrSyntax, fmt.Sprintf("a damaged .xlsx workbook: its zip directory cannot be read (%v); is the file cut short? copy it again", err))}
	}
	defer zr.Close()
	for _, f := range zr.File {
		if err := readEntry(f); err != nil {
			why := err.Error()
			if errors.Is(err, zip.ErrChecksum) {
				why = "its checksum (CRC-32) does not match its bytes"
			}
			return &harness.ParseError{File: path, Err: records.Reword(harness.ErrSyntax, fmt.Sprintf("a damaged .xlsx workbook: entry %s: %s; copy the file again", f.Name, why))}
		}
	}
	return nil
}

// readEntry reads one zip entry to its end: archive/zip checks the CRC
// only then.
func readEntry(f *zip.File) error {
	rc, err := f.Open()
	if err != nil {
		return err
	}
	defer rc.Close()
	_, err = io.Copy(io.Discard, rc)
	return err
}
