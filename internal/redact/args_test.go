package redact

import (
	"bytes"
	"strings"
	"testing"
)

// TestArgs: command lines as ps shows them on real hosts (shell history,
// systemd units and cron lines people post), each secret replaced and
// everything else kept.
func TestArgs(t *testing.T) {
	cases := []struct{ in, want string }{
		{"curl -u admin:s3cr3t https://api.example.com/v1", "curl -u admin:REDACTED https://api.example.com/v1"},
		{"curl --user admin:s3cr3t -X POST https://h/x", "curl --user admin:REDACTED -X POST https://h/x"},
		{"curl -uadmin:s3cr3t https://h/", "curl -uadmin:REDACTED https://h/"},
		{"curl -u admin https://h/", "curl -u admin https://h/"},
		{"/usr/bin/curl -sS -H Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.sig https://h/", "/usr/bin/curl -sS -H Authorization: Bearer REDACTED https://h/"},
		{"curl --oauth2-bearer abc.def.ghi https://h/", "curl --oauth2-bearer REDACTED https://h/"},
		{"sshpass -p s3cr3t ssh backup@db2", "sshpass -p REDACTED ssh backup@db2"},
		{"sshpass -ps3cr3t rsync -a /data db2:/data", "sshpass -pREDACTED rsync -a /data db2:/data"},
		{"redis-cli -h 127.0.0.1 -a s3cr3t --no-auth-warning ping", "redis-cli -h 127.0.0.1 -a REDACTED --no-auth-warning ping"},
		{"redis-cli --pass s3cr3t info memory", "redis-cli --pass REDACTED info memory"},
		{"redis-cli -u redis://default:s3cr3t@127.0.0.1:6379 ping", "redis-cli -u redis://default:REDACTED@127.0.0.1:6379 ping"},
		{"mongosh --host db -u admin -p s3cr3t", "mongosh --host db -u admin -p REDACTED"},
		{"node server.js --token=ghp_16C7e42F292c6912E7710c838347Ae178B4a", "node server.js --token=REDACTED"},
		{"./agent --token ghp_16C7e42F292c6912E7710c838347Ae178B4a --verbose", "./agent --token REDACTED --verbose"},
		{"exporter --api-key=abcd1234 --listen :9100", "exporter --api-key=REDACTED --listen :9100"},
		{"exporter --api-key abcd1234", "exporter --api-key REDACTED"},
		{"vault-agent --secret=topsecret", "vault-agent --secret=REDACTED"},
		{"oauth-proxy --client-secret=xyz --cookie-secret xyz2", "oauth-proxy --client-secret=REDACTED --cookie-secret REDACTED"},
		{"env GITHUB_TOKEN=ghp_x AWS_SECRET_ACCESS_KEY=wJalr make deploy", "env GITHUB_TOKEN=REDACTED AWS_SECRET_ACCESS_KEY=REDACTED make deploy"},
		{"java -Dspring.datasource.password=pw1 -jar app.jar", "java -Dspring.datasource.password=REDACTED -jar app.jar"},
		{"mysql -uroot -e CREATE USER 'a'@'%' IDENTIFIED BY 'pw2'", "mysql -uroot -e CREATE USER 'a'@'%' IDENTIFIED BY 'REDACTED'"},
		{"mysql -uroot -ppw3 shop", "mysql -uroot -pREDACTED shop"},
		{"postgres -D /var/lib/postgresql/15/main -c primary_conninfo=host=p user=rep password=pw4", "postgres -D /var/lib/postgresql/15/main -c primary_conninfo=host=p user=rep password=REDACTED"},
		{"psql postgresql://app:pw5@db:5432/shop", "psql postgresql://app:REDACTED@db:5432/shop"},
		// Not secrets: kept.
		{"psql --no-password -h db shop", "psql --no-password -h db shop"},
		{"psql -p 5433 -U app shop", "psql -p 5433 -U app shop"},
		{"sshd --secret-file /run/secrets/x", "sshd --secret-file /run/secrets/x"},
		{"postgres: app shop [local] idle", "postgres: app shop [local] idle"},
		{"redis-server *:6379", "redis-server *:6379"},
		{"curl -U proxyuser https://h/", "curl -U proxyuser https://h/"},
	}
	for _, c := range cases {
		got := Title(strings.Fields(c.in))
		if got != c.want {
			t.Errorf("Title(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := Title(strings.Fields(got)); again != got {
			t.Errorf("not idempotent on %q: %q", got, again)
		}
		nul := []byte(strings.Join(strings.Fields(c.in), "\x00") + "\x00")
		if out, _ := Cmdline(nul); string(bytes.ReplaceAll(bytes.TrimSuffix(out, []byte{0}), []byte{0}, []byte(" "))) != c.want {
			t.Errorf("Cmdline and Title disagree on %q: %q", c.in, out)
		}
	}
}

// BenchmarkTitle: a backend's title (no secret: the common case) and a
// command line with secrets.
func BenchmarkTitle(b *testing.B) {
	for name, args := range map[string][]string{
		"backend": {"postgres: app shop 10.0.0.5(51234) idle"},
		"secrets": strings.Fields("curl -u admin:s3cr3t -H Authorization: Bearer abc https://h/ --token=x"),
	} {
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Title(args)
			}
		})
	}
}
