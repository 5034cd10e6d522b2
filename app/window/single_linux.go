package window

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"

	"github.com/scouts-hq/scouts/app/sessionbus"
)

// toRunningWindow hands args to the window already open on the same data
// directory, through the DBus name Wails' single-instance lock owns, and
// reports whether one took them. Wails would do the same but then exit
// with status 1, which reads as a failure in a terminal or to the tray.
func toRunningWindow(dataDir string, args []string) (bool, error) {
	conn, err := sessionbus.Connect()
	if err != nil {
		return false, err
	}
	defer conn.Close()
	id := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(instanceID(dataDir))
	name := "org." + id + ".SingleInstance"
	var owned bool
	if err := conn.BusObject().Call("org.freedesktop.DBus.NameHasOwner", 0, name).Store(&owned); err != nil || !owned {
		return false, err
	}
	wd, _ := os.Getwd()
	msg, _ := json.Marshal(struct {
		Args             []string
		WorkingDirectory string
	}{args, wd})
	err = conn.Object(name, dbus.ObjectPath("/org/"+id+"/SingleInstance")).Call(name+".SendMessage", 0, string(msg)).Err
	return err == nil, err
}
