package main

import (
	"fmt"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// envName is the environment variable of a flag: --catalog is RANGECOPY_CATALOG,
// --tls-cert RANGECOPY_TLS_CERT.
func envName(flag string) string {
	return "RANGECOPY_" + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// applySettings gives every flag not set on the command line its value from the environment
// (envName) or, failing that, from the YAML config file (keys are flag names; a list is
// joined with commas). A key of the file that is no flag, or a value a flag refuses, is an
// error naming it. skip lists flags taken from neither (--config itself).
func applySettings(fs *pflag.FlagSet, configFile string, skip ...string) error {
	file := map[string]any{}
	if configFile != "" {
		b, err := os.ReadFile(configFile)
		if err != nil {
			return usageErrorf("--config: %v", err)
		}
		if err := yaml.Unmarshal(b, &file); err != nil {
			return usageErrorf("--config %s: not YAML: %v", configFile, err)
		}
		var unknown []string
		for k := range file {
			if f := fs.Lookup(k); f == nil || slices.Contains(skip, k) {
				unknown = append(unknown, k)
			}
		}
		if len(unknown) > 0 {
			sort.Strings(unknown)
			return usageErrorf("--config %s: unknown settings %s (each key is a flag name, see --help)", configFile, strings.Join(unknown, ", "))
		}
	}
	var err error
	fs.VisitAll(func(f *pflag.Flag) {
		if err != nil || f.Changed || slices.Contains(skip, f.Name) || f.Name == "help" {
			return
		}
		if v, ok := os.LookupEnv(envName(f.Name)); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = usageErrorf("$%s: %v", envName(f.Name), e)
			}
			return
		}
		raw, ok := file[f.Name]
		if !ok {
			return
		}
		v := ""
		switch t := raw.(type) {
		case []any:
			parts := make([]string, len(t))
			for i, p := range t {
				parts[i] = fmt.Sprint(p)
			}
			v = strings.Join(parts, ",")
		case nil:
			return
		default:
			v = fmt.Sprint(t)
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = usageErrorf("--config %s: %s: %v", configFile, f.Name, e)
		}
	})
	return err
}
