package rundir

import (
	"hash/crc32"
	"strconv"
)

// AppendRecord appends r, encoded as one line of RecordsFile with its
// newline, to dst and returns the extended slice.
func AppendRecord(dst []byte, r *Record) []byte {
	// The payload is encoded where the line starts, then moved up past the
	// header, whose length prefix is known only once the payload is.
	start := len(dst)
	dst = strconv.AppendQuoteToASCII(dst, r.Key)
	dst = append(dst, ' ')
	dst = strconv.AppendQuoteToASCII(dst, r.Attacker)
	dst = append(dst, ' ')
	dst = strconv.AppendQuoteToASCII(dst, r.Input)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(r.Variant), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(r.Position), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(r.Pred.Choice), 10)
	dst = append(dst, ' ')
	dst = strconv.AppendInt(dst, int64(recordFlags(r.Pred)), 10)
	dst = append(dst, ' ')
	for i, s := range r.Pred.Scores {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = strconv.AppendFloat(dst, s, 'g', -1, 64)
	}
	if len(r.Pred.Scores) == 0 {
		dst = append(dst, '-')
	}
	n := len(dst) - start
	var hb [32]byte
	header := strconv.AppendInt(hb[:0], int64(n), 10)
	header = append(header, ' ')
	header = appendHex8(header, crc32.ChecksumIEEE(dst[start:]))
	header = append(header, ' ')
	dst = append(dst, header...) // room for the header
	copy(dst[start+len(header):], dst[start:start+n])
	copy(dst[start:], header)
	return append(dst, '\n')
}

func appendHex8(dst []byte, v uint32) []byte {
	const digits = "0123456789abcdef"
	for s := 28; s >= 0; s -= 4 {
		dst = append(dst, digits[(v>>uint(s))&0xf])
	}
	return dst
}
