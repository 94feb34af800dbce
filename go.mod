module rangecopy

go 1.25
