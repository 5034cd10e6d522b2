package e2e

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// `scouts eval` runs the evaluation, which is a program of its own
// (bin/scouts-eval) so that the agent links neither it nor the corpus: found
// beside scouts, then in PATH, with the arguments, streams and exit status
// passed through; missing, scouts says in one line how to build it.
func TestEvalRunsScoutsEval(t *testing.T) {
	scouts, eval := scoutsBinary(t), buildBinary(t, "./cmd/scouts-eval", "scouts-eval")
	emptyPath := t.TempDir()
	run := func(t *testing.T, bin, path string, args ...string) (stdout, stderr string, code int) {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=" + path, "TMPDIR=" + os.TempDir()}
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		var exit *exec.ExitError
		if err != nil && !errors.As(err, &exit) {
			t.Fatalf("%s %v: %v", bin, args, err)
		}
		return out.String(), errb.String(), cmd.ProcessState.ExitCode()
	}

	t.Run("beside scouts", func(t *testing.T) {
		dir := t.TempDir()
		bin := place(t, scouts, dir)
		place(t, eval, dir)
		mail := smallCorpus(t)
		out, errs, code := run(t, bin, emptyPath, "eval", mail, "--train", "4", "--json", "--quiet")
		if code != 0 {
			t.Fatalf("scouts eval exited %d: %s", code, errs)
		}
		var rep struct {
			Accounting struct{ Messages, Trained, Scored int }
		}
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("scouts eval --json printed %q: %v", out, err)
		}
		if a := rep.Accounting; a.Messages != 12 || a.Trained != 4 || a.Scored != 8 {
			t.Fatalf("accounting %+v, want 12 messages: 4 arrived while the user decided, 8 scored", a)
		}
		// A mistake keeps the usage status and says what is wrong.
		_, errs, code = run(t, bin, emptyPath, "eval", "--spam-cv", "1")
		if code != 2 || !strings.Contains(errs, "--spam-cv wants at least 2 folds") {
			t.Fatalf("scouts eval --spam-cv 1: exit %d, %q; want 2 and the reason", code, errs)
		}
	})

	t.Run("in PATH", func(t *testing.T) {
		bin := place(t, scouts, t.TempDir())
		inPath := t.TempDir()
		place(t, eval, inPath)
		out, errs, code := run(t, bin, inPath, "eval", "--help")
		if code != 0 || !strings.Contains(out, "-spam-cv") {
			t.Fatalf("scouts eval --help with scouts-eval in PATH: exit %d, stdout %q, stderr %q", code, out, errs)
		}
	})

	t.Run("missing", func(t *testing.T) {
		bin := place(t, scouts, t.TempDir())
		out, errs, code := run(t, bin, emptyPath, "eval")
		if code != 1 || out != "" || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "make eval") {
			t.Fatalf("scouts eval without scouts-eval: exit %d, stdout %q, stderr %q; want 1 and one line naming make eval", code, out, errs)
		}
	})
}

// place puts a copy of the binary bin into dir (a hard link when it can)
// and returns its path there.
func place(t *testing.T, bin, dir string) string {
	t.Helper()
	dst := filepath.Join(dir, filepath.Base(bin))
	if os.Link(bin, dst) == nil {
		return dst
	}
	src, err := os.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_EXCL, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(f, src); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return dst
}

// smallCorpus writes twelve messages, four of them spam (under spam/), as
// scouts eval reads a directory of RFC 822 files.
func smallCorpus(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for i := range 12 {
		sub, from, subject := "ham", "dev@lists.example.org", "Build %d broke on the release branch"
		if i%3 == 0 {
			sub, from, subject = "spam", "win@prizes.example.com", "You won a prize, claim %d now"
		}
		raw := fmt.Sprintf("From: %s\r\nTo: you@example.invalid\r\nSubject: "+subject+"\r\nMessage-ID: <m%d@example.org>\r\n"+
			"Date: Mon, 2 Sep 2002 10:%02d:00 +0000\r\n\r\nMessage number %d.\r\n", from, i, i, i, i)
		p := filepath.Join(dir, sub, fmt.Sprintf("%02d.eml", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(raw), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
