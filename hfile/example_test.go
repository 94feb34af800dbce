package hfile_test

import (
	"bytes"
	"fmt"
	"log"

	"rangecopy/hfile"
)

func Example() {
	var buf bytes.Buffer
	w := hfile.NewWriter(&buf, hfile.WriterOptions{
		Encoding:    hfile.EncodingFastDiff,
		Compression: hfile.CompressionSnappy,
		CreateTime:  1700000000000,
	})
	for _, row := range []string{"apple", "banana", "cherry"} {
		c := &hfile.Cell{Row: []byte(row), Family: []byte("cf"), Qualifier: []byte("q"),
			Timestamp: 1700000000000, Type: hfile.TypePut, Value: []byte("v-" + row)}
		if err := w.Append(c); err != nil {
			log.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		log.Fatal(err)
	}

	r, err := hfile.Open(bytes.NewReader(buf.Bytes()), int64(buf.Len()), "example.hfile")
	if err != nil {
		log.Fatal(err)
	}
	s := r.Scanner(hfile.ScanOptions{StartRow: []byte("b")})
	for s.Next() {
		c := s.Cell()
		fmt.Printf("%s %s=%s\n", c.Row, c.Qualifier, c.Value)
	}
	if err := s.Err(); err != nil {
		log.Fatal(err)
	}
	// Output:
	// banana q=v-banana
	// cherry q=v-cherry
}
