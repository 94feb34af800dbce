package hfile

// BloomType is the general bloom filter kind (BloomType in HBase).
type BloomType uint8

// Bloom filter types.
const (
	BloomNone BloomType = iota
	BloomRow
	BloomRowCol
	BloomRowPrefixFixedLength
)

// String returns HBase's name of the type.
func (b BloomType) String() string {
	switch b {
	case BloomRow:
		return "ROW"
	case BloomRowCol:
		return "ROWCOL"
	case BloomRowPrefixFixedLength:
		return "ROWPREFIX_FIXED_LENGTH"
	}
	return "NONE"
}

func bloomTypeByName(s string) BloomType {
	for _, b := range []BloomType{BloomRow, BloomRowCol, BloomRowPrefixFixedLength} {
		if b.String() == s {
			return b
		}
	}
	return BloomNone
}
