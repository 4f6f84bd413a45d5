package bundle

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"
)

// contents is everything a bundle holds, by path in the bundle.
type contents struct {
	manifest Manifest
	files    map[string][]byte // proc/, sys/, root/, live/, logs/
	links    map[string]string // proc/PID/cwd ... -> target
}

// write writes the bundle as a gzip-compressed tar: manifest.json first,
// then links.json, then the files in path order.
func (c *contents) write(w io.Writer) error {
	zw, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	mt := c.manifest.CapturedAt
	if err := writeJSON(tw, manifestName, c.manifest, mt); err != nil {
		return err
	}
	if err := writeJSON(tw, linksName, c.links, mt); err != nil {
		return err
	}
	paths := make([]string, 0, len(c.files))
	for p := range c.files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		if err := writeMember(tw, p, c.files[p], mt); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write bundle: %w", err)
	}
	return nil
}

func writeJSON(tw *tar.Writer, name string, v any, mt time.Time) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	return writeMember(tw, name, append(b, '\n'), mt)
}

func writeMember(tw *tar.Writer, name string, data []byte, mt time.Time) error {
	h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(data)), Mode: 0o644, ModTime: mt, Format: tar.FormatPAX}
	if err := tw.WriteHeader(h); err != nil {
		return fmt.Errorf("write bundle member %s: %w", name, err)
	}
	if _, err := tw.Write(data); err != nil {
		return fmt.Errorf("write bundle member %s: %w", name, err)
	}
	return nil
}
