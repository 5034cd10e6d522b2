package localapi

import (
	"crypto/subtle"
	"io/fs"
	"net/http"
	"path"
	"strings"
)

// tokenCookie carries the API token for the browser UI. It is HttpOnly (page
// scripts never see it) and SameSite=Strict (other sites' pages never send
// it).
const tokenCookie = "scouts_token"

func newUIHandler(ui fs.FS) http.Handler {
	files := http.FileServerFS(ui)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			writeError(w, http.StatusMethodNotAllowed, "invalid", "the UI only answers GET")
			return
		}
		// A single-page app: paths that are not files are the app's own
		// routes (/tasks, /scouts), answered with index.html.
		name := strings.TrimPrefix(path.Clean(r.URL.Path), "/")
		if name == "" {
			name = "index.html"
		}
		if _, err := fs.Stat(ui, name); err != nil {
			if _, err := fs.Stat(ui, "index.html"); err != nil {
				http.Error(w, "The Scouts UI is not built into this binary: run `make build` (it builds frontend/ with npm).", http.StatusNotFound)
				return
			}
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/"
			r = r2
		}
		if strings.HasPrefix(name, "assets/") {
			// Vite names assets by content hash: they never change.
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			w.Header().Set("Cache-Control", "no-cache")
		}
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Referrer-Policy", "no-referrer")
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
		files.ServeHTTP(w, r)
	})
}

// serveUI serves the frontend. The URL the agent prints carries the token
// (?token=…) once: it is moved into the cookie and the browser is sent to
// the same page without it, so it does not linger in history.
func (s *Server) serveUI(w http.ResponseWriter, r *http.Request) {
	if tok := r.URL.Query().Get("token"); tok != "" {
		if subtle.ConstantTimeCompare([]byte(tok), []byte(s.token)) != 1 {
			writeError(w, http.StatusUnauthorized, "unauthorized", "this link's token is not the agent's current token; run `scouts agent --ui` again for a fresh link")
			return
		}
		// Kept 30 days, so that a browser restart does not sign the user
		// out; the token itself only changes when its file is deleted.
		http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.token, Path: "/", HttpOnly: true,
			SameSite: http.SameSiteStrictMode, MaxAge: 30 * 24 * 3600})
		u := *r.URL
		q := u.Query()
		q.Del("token")
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	s.ui.ServeHTTP(w, r)
}
