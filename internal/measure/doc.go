// Package measure holds the one measuring choice a user makes (dbmem report
// --method auto|fast|smaps|status). The CLI parses it once and passes it
// down unchanged: snapshot, postgres, mysql, linux and the sampler each read
// what it means for them. It imports nothing of dbmem, so every reader,
// down to internal/linux, can take it.
package measure
