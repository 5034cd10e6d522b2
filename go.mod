module github.com/scouts-hq/scouts

go 1.26.0

require (
	github.com/fsnotify/fsnotify v1.10.1
	github.com/ncruces/go-sqlite3 v0.35.6
	golang.org/x/sys v0.48.0
)

require (
	github.com/ncruces/go-sqlite3-wasm/v6 v6.3.35304 // indirect
	github.com/ncruces/julianday v1.0.0 // indirect
)
