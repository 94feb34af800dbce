package catalog

// CheckURL checks a catalog URL as Open reads it, without opening anything: a command checks
// its flags with it before it connects to anything.
func CheckURL(raw string) error {
	_, err := parseURL(raw, 0)
	return err
}

// RedactURL is a catalog URL with its password hidden, for messages and logs.
func RedactURL(raw string) string {
	return redact(raw)
}
