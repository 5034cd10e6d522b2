package icons

import (
	"bytes"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

var update = flag.Bool("update", false, "rewrite build/icons and build/appicon.png from the code")

// The PNGs in build/ are what packaging and the Wails CLI use; they must be
// the ones the code draws. go test ./app/icons -update rewrites them.
func TestBuildIconsMatchTheCode(t *testing.T) {
	root := filepath.Join("..", "..", "build")
	files := Files()
	files["../appicon.png"] = App(512) // the Wails CLI's convention
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	total := 0
	for _, n := range names {
		p := filepath.Join(root, "icons", n)
		want := files[n]
		total += len(want)
		if *update {
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("%v (run: go test ./app/icons -update)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what the code draws (run: go test ./app/icons -update)", p)
		}
	}
	if total > 200<<10 {
		t.Errorf("icons weigh %d KB; keep them small", total>>10)
	}
}

func TestIconsDecodeAndDiffer(t *testing.T) {
	seen := map[string]State{}
	for _, st := range States {
		b := Tray(st, TraySize)
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", st, err)
		}
		if img.Bounds().Dx() != TraySize || img.Bounds().Dy() != TraySize {
			t.Errorf("%s: size %v", st, img.Bounds())
		}
		// Corners are transparent, the centre is the white dot.
		if _, _, _, a := img.At(0, 0).RGBA(); a != 0 {
			t.Errorf("%s: corner not transparent", st)
		}
		if r, g, b, a := img.At(TraySize/2, TraySize/2).RGBA(); r>>8 != 0xff || g>>8 != 0xff || b>>8 != 0xff || a>>8 != 0xff {
			t.Errorf("%s: centre is not white", st)
		}
		if prev, ok := seen[string(b)]; ok {
			t.Errorf("%s looks the same as %s", st, prev)
		}
		seen[string(b)] = st
	}
}
