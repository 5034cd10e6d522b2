// Package icons draws the Scouts icons: the application icon and the
// tray's three states. They are drawn in code (signed distances,
// supersampled) so that every size is crisp and the same source feeds the
// tray, the window and the PNGs in build/icons (regenerated and checked by
// this package's test). Standard library only.
package icons

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"sync"
)

// State is what the tray shows.
type State int

const (
	// OK: everything works.
	OK State = iota
	// Offline: a relay is configured and not reachable; local work goes on.
	Offline
	// Attention: a scout is failing, or the relay refused this device.
	Attention
)

func (s State) String() string {
	switch s {
	case OK:
		return "ok"
	case Offline:
		return "offline"
	case Attention:
		return "attention"
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// States lists every state, for generating files.
var States = []State{OK, Offline, Attention}

var (
	blue   = rgb(0x25, 0x63, 0xeb)
	grey   = rgb(0x7c, 0x83, 0x8f)
	orange = rgb(0xf5, 0x9e, 0x0b)
	white  = rgb(0xff, 0xff, 0xff)
)

func rgb(r, g, b uint8) color.NRGBA { return color.NRGBA{r, g, b, 0xff} }

// layer is a shape (negative distance inside, in units of the icon's
// side) painted in one colour.
type layer struct {
	dist func(x, y float64) float64
	c    color.NRGBA
}

func roundedSquare(inset, radius float64) func(x, y float64) float64 {
	return func(x, y float64) float64 {
		// centre at 0.5,0.5; half side h
		h := 0.5 - inset - radius
		dx := math.Max(math.Abs(x-0.5)-h, 0)
		dy := math.Max(math.Abs(y-0.5)-h, 0)
		return math.Hypot(dx, dy) - radius
	}
}

func disk(cx, cy, r float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return math.Hypot(x-cx, y-cy) - r }
}

func ring(cx, cy, r, width float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return math.Abs(math.Hypot(x-cx, y-cy)-r) - width/2 }
}

// glyph is the scout's lens: a ring with a centre dot and a short sweep
// line towards the upper right, on a rounded square.
func glyph(bg color.NRGBA) []layer {
	sweep := func(x, y float64) float64 {
		// segment from centre to the ring at 45° up-right, width 0.06
		ax, ay := 0.5, 0.5
		bx, by := 0.5+0.2*math.Cos(-math.Pi/4), 0.5+0.2*math.Sin(-math.Pi/4)
		px, py := x-ax, y-ay
		vx, vy := bx-ax, by-ay
		t := math.Max(0, math.Min(1, (px*vx+py*vy)/(vx*vx+vy*vy)))
		return math.Hypot(px-t*vx, py-t*vy) - 0.035
	}
	return []layer{
		{roundedSquare(0.04, 0.2), bg},
		{ring(0.5, 0.5, 0.27, 0.075), white},
		{disk(0.5, 0.5, 0.085), white},
		{sweep, white},
	}
}

func layers(st State, app bool) []layer {
	if app {
		return glyph(blue)
	}
	switch st {
	case Offline:
		return glyph(grey)
	case Attention:
		ls := glyph(blue)
		// a badge in the upper right corner with a white rim
		return append(ls,
			layer{disk(0.78, 0.22, 0.22), white},
			layer{disk(0.78, 0.22, 0.16), orange})
	}
	return glyph(blue)
}

// render rasterises the layers at size×size with 4×4 supersampling.
func render(ls []layer, size int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, size, size))
	const ss = 4
	for py := 0; py < size; py++ {
		for px := 0; px < size; px++ {
			var r, g, b, a float64
			for sy := 0; sy < ss; sy++ {
				for sx := 0; sx < ss; sx++ {
					x := (float64(px) + (float64(sx)+0.5)/ss) / float64(size)
					y := (float64(py) + (float64(sy)+0.5)/ss) / float64(size)
					// Paint layers in order, over a transparent pixel.
					var cr, cg, cb, ca float64
					for _, l := range ls {
						if l.dist(x, y) <= 0 {
							cr, cg, cb, ca = float64(l.c.R), float64(l.c.G), float64(l.c.B), 1
						}
					}
					r += cr * ca
					g += cg * ca
					b += cb * ca
					a += ca
				}
			}
			if a == 0 {
				continue
			}
			img.SetNRGBA(px, py, color.NRGBA{
				R: uint8(math.Round(r / a)), G: uint8(math.Round(g / a)), B: uint8(math.Round(b / a)),
				A: uint8(math.Round(a / (ss * ss) * 255)),
			})
		}
	}
	return img
}

type key struct {
	st   State
	app  bool
	size int
}

var (
	mu    sync.Mutex
	cache = map[key][]byte{}
)

func encode(k key) []byte {
	mu.Lock()
	defer mu.Unlock()
	if b, ok := cache[k]; ok {
		return b
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, render(layers(k.st, k.app), k.size)); err != nil {
		panic(err) // encoding an in-memory image cannot fail
	}
	cache[k] = buf.Bytes()
	return cache[k]
}

// App returns the application icon as a size×size PNG.
func App(size int) []byte { return encode(key{app: true, size: size}) }

// Tray returns the tray icon for a state as a size×size PNG.
func Tray(st State, size int) []byte { return encode(key{st: st, size: size}) }

// TraySize is the size the tray hands to the system: StatusNotifierItem
// hosts scale it to the panel (22–48 px).
const TraySize = 64

// AppSizes and TraySizes are the files kept in build/icons.
var (
	AppSizes  = []int{16, 32, 48, 64, 128, 256, 512}
	TraySizes = []int{22, 32, 64}
)

// Files returns build/icons' content: file name → PNG.
func Files() map[string][]byte {
	out := map[string][]byte{}
	for _, s := range AppSizes {
		out[fmt.Sprintf("scouts-%d.png", s)] = App(s)
	}
	for _, st := range States {
		for _, s := range TraySizes {
			out[fmt.Sprintf("tray-%s-%d.png", st, s)] = Tray(st, s)
		}
	}
	return out
}
