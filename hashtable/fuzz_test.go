package hashtable

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"time"
)

// The fuzz targets feed untrusted bytes to every reader: each must return
// records or an error, never panic, and never allocate more than the input
// allows (lengths are checked against the bytes left before allocating).

func FuzzReadProperties(f *testing.F) {
	var b bytes.Buffer
	m := Manifest{Table: "ns:t", Families: "a,b", TargetBatchSize: 8000, NumHashFiles: 2, StartRow: []byte{1}, Versions: 1, StartTime: 1, EndTime: 2}
	WriteProperties(&b, m.Properties(), time.Unix(0, 0))
	f.Add(b.Bytes())
	f.Add([]byte("a\\\n b=c\\u00e9\r\n!x\n#y\nk:v"))
	f.Add([]byte("k=\\u12"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ReadProperties(data, "fuzz")
		if err != nil {
			if !errors.Is(err, ErrFormat) {
				t.Fatalf("error not ErrFormat: %v", err)
			}
			return
		}
		if m, err := ParseManifest(p); err == nil {
			// A manifest read back writes and reads as itself.
			var out bytes.Buffer
			WriteProperties(&out, m.Properties(), time.Unix(0, 0))
			q, err := ReadProperties(out.Bytes(), "again")
			if err != nil {
				t.Fatalf("re-read: %v", err)
			}
			if _, err := ParseManifest(q); err != nil {
				t.Fatalf("re-parse: %v", err)
			}
		}
	})
}

func FuzzSeqReader(f *testing.F) {
	f.Add(seqFile(f, 0))
	f.Add(seqFile(f, 3))
	f.Add(seqFile(f, 200))
	f.Add(blockFile(f, [][]byte{[]byte("a"), []byte("b"), []byte("c")}, []int64{1, 2, 3}, 2))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewSeqReader(bytes.NewReader(data), int64(len(data)), "fuzz")
		if err != nil {
			return
		}
		for n := 0; ; n++ {
			err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				return
			}
			if len(r.Key())+len(r.Value()) > len(data) && !r.Header.BlockCompressed {
				t.Fatalf("record of %d bytes from %d", len(r.Key())+len(r.Value()), len(data))
			}
		}
	})
}

func FuzzReadMapFile(f *testing.F) {
	data, index, _ := mapFile(f, 3)
	f.Add(data, index)
	data, index, _ = mapFile(f, 300)
	f.Add(data, index)
	f.Fuzz(func(t *testing.T, data, index []byte) {
		es, err := ReadMapFile(bytes.NewReader(data), int64(len(data)), "data", bytes.NewReader(index), int64(len(index)), "index")
		if err != nil {
			return
		}
		for i := 1; i < len(es); i++ {
			if bytes.Compare(es[i-1].Key, es[i].Key) >= 0 {
				t.Fatalf("keys out of order at %d", i)
			}
		}
	})
}
