// Package records reads the records of benchmarks' annotation files: JSON
// (a whole document walked as a stream of tokens, a list of records, or
// the records a path such as "data.*.*" names), JSON Lines, CSV and TSV
// tables with a header, and Parquet tables. Every record, whatever file
// it came from, is a Record with typed getters whose errors are
// *harness.ParseError values naming the file, the line (or, in Parquet,
// the row) and the field.
//
// The formats of harness/items/formats and the adapter specs of
// harness/items/spec read through it, so that a byte-order mark, a file
// over harness.MaxFileBytes, a record cut short or a number written as a
// string are handled, and reported, the same way in every format.
package records
