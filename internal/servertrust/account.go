package servertrust

import (
	"fmt"
	"os"
	"os/user"
	"strconv"
	"strings"
)

// Account is an OS account that runs a server.
type Account struct {
	UID  uint32 `json:"uid"`
	Name string `json:"name,omitempty"` // "" when the uid has no name here
}

// AccountOf names uid from the user database.
func AccountOf(uid uint32) Account {
	a := Account{UID: uid}
	if u, err := user.LookupId(strconv.FormatUint(uint64(uid), 10)); err == nil {
		a.Name = u.Username
	}
	return a
}

// String is the name, else "uid N".
func (a Account) String() string {
	if a.Name != "" {
		return a.Name
	}
	return fmt.Sprintf("uid %d", a.UID)
}

// Policy says which servers may receive a password and how.
type Policy struct {
	// Accounts are more trusted server accounts (names or numeric uids),
	// from --server-account.
	Accounts []string
	// AllowCleartext permits sending a password in clear without TLS
	// (PostgreSQL's password method, mysql_clear_password) and over TCP
	// without TLS (--allow-cleartext-password).
	AllowCleartext bool
}

// Trusted reports whether a server run by a may receive a password: a is
// one of defaults (the engine's own account: "postgres", "mysql"), one of
// p.Accounts, or the account dbmem runs as.
func (p Policy) Trusted(a Account, defaults ...string) bool {
	if a.UID == uint32(os.Geteuid()) {
		return true
	}
	for _, name := range append(append([]string(nil), defaults...), p.Accounts...) {
		if name == a.Name && a.Name != "" || name == strconv.FormatUint(uint64(a.UID), 10) {
			return true
		}
	}
	return false
}

// TrustedList names the trusted accounts for messages: "postgres, the
// --server-account ones, root" (dbmem's own account last).
func (p Policy) TrustedList(defaults ...string) string {
	names := append(append([]string(nil), defaults...), p.Accounts...)
	self := AccountOf(uint32(os.Geteuid()))
	names = append(names, self.String())
	return strings.Join(names, ", ")
}
