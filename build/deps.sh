#!/usr/bin/env bash
# Checks and installs what building, running and testing Scouts needs on
# Debian/Ubuntu. Usage: build/deps.sh run|test
#
# Missing Debian packages are installed with apt-get, as root or through
# sudo (it says so first). Go and Node.js are not installed from apt:
# Debian's are too old; the script says where to get them.
set -euo pipefail

target="${1:-run}"
need_go="1.26"

say() { printf 'deps: %s\n' "$*" >&2; }

# Packages per target. "run" is what `make run` needs; "test" adds what the
# test suite drives (it is a superset): chromium for the browser tests
# (SCOUTS_CHROMIUM=/path/to/chrome uses another instead).
# The desktop window (bin/scouts-window, Wails v2) builds against GTK 3 and
# WebKit2GTK 4.1 with cgo; its tests run it under Xvfb on a private DBus
# session bus (dbus-x11 brings dbus-daemon) and take screenshots with
# ImageMagick's import.
run_pkgs=(git ca-certificates build-essential pkg-config libgtk-3-dev libwebkit2gtk-4.1-dev)
# The Gmail tests run Google's Pub/Sub emulator (Java; Google's apt
# repository's google-cloud-cli-pubsub-emulator) and gnome-keyring in a
# private DBus session.
# The relay's container image is built and run with podman
# (relay/cmd/scouts-relay's image test; no registry needed: FROM scratch).
# runc beside it: crun, podman's default runtime, refuses hosts whose
# cgroup hierarchy is hybrid (v1 controllers with a v2 mount).
test_pkgs=("${run_pkgs[@]}" xvfb dbus-x11 gnome-keyring imagemagick default-jre-headless google-cloud-cli-pubsub-emulator podman runc)
if [ -z "${SCOUTS_CHROMIUM:-}" ]; then
	test_pkgs+=(chromium)
fi

case "$target" in
run) pkgs=("${run_pkgs[@]}") ;;
test) pkgs=("${test_pkgs[@]}") ;;
*) say "unknown target '$target' (want run or test)"; exit 2 ;;
esac

if ! command -v go >/dev/null 2>&1; then
	say "Go is not installed. Scouts needs Go ${need_go} or newer: https://go.dev/dl/"
	say "e.g.: curl -fsSL https://go.dev/dl/go1.26.8.linux-amd64.tar.gz | sudo tar -C /usr/local -xz && export PATH=\$PATH:/usr/local/go/bin"
	exit 1
fi
have_go="$(go env GOVERSION | sed 's/^go//')"
if [ "$(printf '%s\n%s\n' "$need_go" "$have_go" | sort -V | head -n1)" != "$need_go" ]; then
	say "Go $have_go is too old; Scouts needs Go ${need_go} or newer: https://go.dev/dl/"
	exit 1
fi

# Node.js builds the web UI (Vite needs 20.19+ or 22.12+). Debian 12's
# nodejs is 18: too old.
node_help() {
	say "Install Node.js 22 LTS (it brings npm): https://nodejs.org/en/download"
	say "e.g. on Debian/Ubuntu: curl -fsSL https://deb.nodesource.com/setup_22.x | sudo -E bash - && sudo apt-get install -y nodejs"
}
if ! command -v node >/dev/null 2>&1; then
	say "Node.js is not installed. Scouts builds its web UI with Node.js 20.19+ or 22.12+ and npm."
	node_help
	exit 1
fi
have_node="$(node --version | sed 's/^v//')"
node_major="${have_node%%.*}"
node_minor="$(printf '%s' "$have_node" | cut -d. -f2)"
if ! { [ "$node_major" -eq 20 ] && [ "$node_minor" -ge 19 ]; } &&
	! { [ "$node_major" -eq 22 ] && [ "$node_minor" -ge 12 ]; } &&
	! [ "$node_major" -ge 23 ]; then
	say "Node.js $have_node cannot build the web UI: it needs 20.19+ or 22.12+."
	node_help
	exit 1
fi
if ! command -v npm >/dev/null 2>&1; then
	say "npm is missing (Node.js $have_node is installed without it)."
	node_help
	exit 1
fi

missing=()
if command -v dpkg-query >/dev/null 2>&1; then
	for p in "${pkgs[@]}"; do
		# Any Java runtime runs the emulator, not only Debian's default one.
		if [ "$p" = default-jre-headless ] && command -v java >/dev/null 2>&1; then
			continue
		fi
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
			if [ "$p" = google-cloud-cli-pubsub-emulator ] && ! apt-cache show "$p" >/dev/null 2>&1; then
				say "the Pub/Sub emulator comes from Google's apt repository: see https://cloud.google.com/sdk/docs/install#deb, then apt-get install google-cloud-cli-pubsub-emulator"
				exit 1
			fi
			missing+=("$p")
		fi
	done
else
	for p in "${pkgs[@]}"; do
		case "$p" in
		git) command -v git >/dev/null 2>&1 || missing+=("$p") ;;
		chromium) command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || missing+=("$p") ;;
		build-essential) command -v cc >/dev/null 2>&1 || missing+=("a C compiler") ;;
		pkg-config) command -v pkg-config >/dev/null 2>&1 || missing+=("$p") ;;
		libgtk-3-dev) pkg-config --exists gtk+-3.0 2>/dev/null || missing+=("GTK 3 development files") ;;
		libwebkit2gtk-4.1-dev) pkg-config --exists webkit2gtk-4.1 2>/dev/null || missing+=("WebKit2GTK 4.1 development files") ;;
		xvfb) command -v Xvfb >/dev/null 2>&1 || missing+=("Xvfb") ;;
		dbus-x11) command -v dbus-daemon >/dev/null 2>&1 || missing+=("dbus-daemon") ;;
		imagemagick) command -v import >/dev/null 2>&1 || missing+=("ImageMagick") ;;
		gnome-keyring) command -v gnome-keyring-daemon >/dev/null 2>&1 || missing+=("gnome-keyring") ;;
		default-jre-headless) command -v java >/dev/null 2>&1 || missing+=("a Java runtime") ;;
		google-cloud-cli-pubsub-emulator) command -v gcloud >/dev/null 2>&1 || missing+=("the Google Cloud CLI with its Pub/Sub emulator") ;;
		podman) command -v podman >/dev/null 2>&1 || missing+=("podman") ;;
		runc) command -v runc >/dev/null 2>&1 || missing+=("runc") ;;
		esac
	done
	if [ "${#missing[@]}" -gt 0 ]; then
		say "not a Debian/Ubuntu system: please install ${missing[*]} yourself"
		exit 1
	fi
fi

if [ "${#missing[@]}" -gt 0 ]; then
	if [ "$(id -u)" -eq 0 ]; then
		sudo=()
		say "installing missing system packages as root: ${missing[*]}"
	elif command -v sudo >/dev/null 2>&1; then
		sudo=(sudo)
		say "installing missing system packages with sudo (you may be asked for your password): ${missing[*]}"
	else
		say "missing system packages: ${missing[*]}; install them as root: apt-get install ${missing[*]}"
		exit 1
	fi
	export DEBIAN_FRONTEND=noninteractive
	"${sudo[@]}" apt-get update -qq
	"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The tests' MCP tools (build/mcptest: the official conformance suite and
# the official filesystem server, whose tools the agent runs as actions),
# from the npm registry at the versions its lock file pins; again only when
# the lock changed. The suite's 0.1.10 runs on Node.js 20; its later
# releases need 22 (fs.globSync).
if [ "$target" = test ]; then
	mcptest="$(dirname "$0")/mcptest"
	if [ ! -f "$mcptest/node_modules/.package-lock.json" ] || [ "$mcptest/package-lock.json" -nt "$mcptest/node_modules/.package-lock.json" ]; then
		say "installing the tests' MCP tools (npm ci in $mcptest)"
		(cd "$mcptest" && npm ci --no-audit --no-fund --loglevel=error)
	fi
fi
