//go:build window

package window

import (
	"context"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"
	"github.com/wailsapp/wails/v2/pkg/options/assetserver"
	"github.com/wailsapp/wails/v2/pkg/options/linux"
	"github.com/wailsapp/wails/v2/pkg/runtime"

	"github.com/scouts-hq/scouts/app/datadir"
	"github.com/scouts-hq/scouts/app/icons"
	"github.com/scouts-hq/scouts/app/localclient"
	"github.com/scouts-hq/scouts/frontend"
)

// Built reports whether this binary has the desktop window.
const Built = true

// Run opens the window on the agent of opts.DataDir and returns when the
// user closes it. The agent must be running (see EnsureAgent); closing the
// window leaves it running.
func Run(ctx context.Context, opts Options) error {
	log := opts.logger()
	sock := datadir.SocketPath(opts.DataDir)
	if handed, err := toRunningWindow(opts.DataDir, os.Args[1:]); handed {
		log.Info("window: Scouts is already open; brought it to the front")
		return nil
	} else if err != nil {
		log.Debug("window: single-instance check", "err", err)
	}
	client := localclient.NewSocket(sock)
	client.ClientName = ClientName

	var (
		mu         sync.Mutex
		wctx       context.Context
		stopBridge context.CancelFunc = func() {}
		firstLoad                     = true
	)
	emit := func(name string, data any) {
		mu.Lock()
		c := wctx
		mu.Unlock()
		if c != nil {
			runtime.EventsEmit(c, name, data)
		}
	}
	proxy := NewProxy(sock)
	return wails.Run(&options.App{
		Title:     "Scouts",
		Width:     1180,
		Height:    800,
		MinWidth:  640,
		MinHeight: 480,
		AssetServer: &assetserver.Options{
			Assets: frontend.Dist(),
			Middleware: func(next http.Handler) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if strings.HasPrefix(r.URL.Path, "/api/") {
						proxy.ServeHTTP(w, r)
						// Wails v2 finishes the page's request from this
						// goroutine, off GTK's main thread, which nothing
						// then wakes: under load the page sat on "Loading
						// suggestions…" with every answer in until the
						// next stream event (the window test caught it in
						// a stress run; fixed upstream in Wails v3,
						// wailsapp/wails#5640). A no-op script, queued on
						// the main loop just after the request is
						// finished, wakes it.
						mu.Lock()
						c := wctx
						mu.Unlock()
						if c != nil {
							time.AfterFunc(20*time.Millisecond, func() { runtime.WindowExecJS(c, "void 0;") })
						}
						return
					}
					next.ServeHTTP(w, r)
				})
			},
		},
		Logger:             wailsLogger{log},
		LogLevel:           2, // logger.DEBUG; Wails filters, slog filters again
		LogLevelProduction: 2,
		OnStartup: func(c context.Context) {
			mu.Lock()
			wctx = c
			mu.Unlock()
			// Ctrl-C or SIGTERM (ctx) closes the window like its button.
			go func() {
				<-ctx.Done()
				runtime.Quit(c)
			}()
		},
		// Load finished: the page's scripts run and listen to our events.
		// A reload starts a new page, which gets a new stream (from its
		// hello).
		OnDomReady: func(c context.Context) {
			mu.Lock()
			stopBridge()
			bctx, cancel := context.WithCancel(ctx)
			stopBridge = cancel
			first := firstLoad
			firstLoad = false
			mu.Unlock()
			go Bridge(bctx, client, emit)
			if first && opts.View != "" {
				navigate(c, opts.View)
			}
			log.Debug("window: page loaded")
		},
		OnShutdown: func(context.Context) {
			mu.Lock()
			stopBridge()
			mu.Unlock()
		},
		SingleInstanceLock: &options.SingleInstanceLock{
			UniqueId: instanceID(opts.DataDir),
			OnSecondInstanceLaunch: func(d options.SecondInstanceData) {
				mu.Lock()
				c := wctx
				mu.Unlock()
				if c == nil {
					return
				}
				runtime.WindowUnminimise(c)
				runtime.WindowShow(c)
				if v := viewArg(d.Args); v != "" {
					navigate(c, v)
				}
			},
		},
		Linux: &linux.Options{
			Icon:        icons.App(256),
			ProgramName: "scouts",
			// A list of cards needs no GPU. With compositing on demand,
			// WebKitGTK without GL (Xvfb, VMs, software rendering) stopped
			// repainting after the first frame until the next event:
			// measured in docs/desktop.md.
			WebviewGpuPolicy: linux.WebviewGpuPolicyNever,
		},
	})
}

// navigate shows a view of the frontend (its hash router: #/scouts).
func navigate(c context.Context, view string) {
	if !validView(view) {
		return
	}
	runtime.WindowExecJS(c, "location.hash = '#/"+view+"';")
}

// wailsLogger sends Wails' log to ours.
type wailsLogger struct{ l *slog.Logger }

func (w wailsLogger) Print(m string)   { w.l.Info(m, "component", "wails") }
func (w wailsLogger) Trace(m string)   { w.l.Debug(m, "component", "wails") }
func (w wailsLogger) Debug(m string)   { w.l.Debug(m, "component", "wails") }
func (w wailsLogger) Info(m string)    { w.l.Debug(m, "component", "wails") }
func (w wailsLogger) Warning(m string) { w.l.Warn(m, "component", "wails") }
func (w wailsLogger) Error(m string)   { w.l.Error(m, "component", "wails") }
func (w wailsLogger) Fatal(m string)   { w.l.Error(m, "component", "wails"); os.Exit(1) }
