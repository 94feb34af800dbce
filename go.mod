module rangecopy

go 1.25

require (
	github.com/klauspost/compress v1.18.0
	github.com/pierrec/lz4/v4 v4.1.22
)
