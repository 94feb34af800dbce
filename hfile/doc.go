// Package hfile reads and writes HBase HFiles (format versions 2 and 3).
//
// A Reader opens a file through an io.ReaderAt and its size, verifies block
// checksums, decompresses and decodes data blocks and hands out cells through a
// Scanner that does not allocate per cell. A Writer produces version 3 files
// that an HBase 2.x region server accepts through bulk load.
//
// The package also understands split references (half-file views of a parent
// file) and HFileLink names, so that callers can treat them as one logical file.
//
// All multi-byte integers in the format are big-endian unless stated otherwise.
package hfile
