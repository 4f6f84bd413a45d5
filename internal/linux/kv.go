package linux

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// kvFile holds the numeric "Key: value [kB]" lines of a kernel file
// (meminfo, status, smaps_rollup). Values given in kB are converted to bytes;
// unit-less values (page counts) are kept as they are. Lines that are not
// numeric are ignored, so a new or odd line never breaks a parse.
type kvFile map[string]uint64

// parseKV reads "Key: value [unit]" lines. It never fails on content; only a
// read error is returned.
func parseKV(r io.Reader) (kvFile, error) {
	kv := kvFile{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		key, val, ok := parseKVLine(sc.Text())
		if ok {
			kv[key] = val
		}
	}
	return kv, sc.Err()
}

func parseKVLine(line string) (string, uint64, bool) {
	key, rest, ok := strings.Cut(line, ":")
	if !ok || key == "" || strings.ContainsAny(key, " \t") {
		return "", 0, false
	}
	f := strings.Fields(rest)
	if len(f) == 0 || len(f) > 2 {
		return "", 0, false
	}
	v, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return "", 0, false
	}
	if len(f) == 2 {
		mult, ok := unitBytes(f[1])
		if !ok || v > (1<<64-1)/mult {
			return "", 0, false
		}
		v *= mult
	}
	return key, v, true
}

func unitBytes(u string) (uint64, bool) {
	switch strings.ToLower(u) {
	case "b":
		return 1, true
	case "kb":
		return 1 << 10, true
	case "mb":
		return 1 << 20, true
	case "gb":
		return 1 << 30, true
	}
	return 0, false
}

// opt returns a pointer to the value when the key is present: for fields
// that only some kernel versions print.
func (kv kvFile) opt(key string) *uint64 {
	v, ok := kv[key]
	if !ok {
		return nil
	}
	return &v
}

// require returns the first of keys that is missing, for files whose core
// fields must be there.
func (kv kvFile) require(file string, keys ...string) error {
	for _, k := range keys {
		if _, ok := kv[k]; !ok {
			return fmt.Errorf("%s has no %s line", file, k)
		}
	}
	return nil
}
