package procid

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

func TestSelfIsAlive(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process starts are read from /proc")
	}
	self := Self()
	if self.BootID == "" || self.Start == 0 || self.PID != os.Getpid() {
		t.Fatalf("Self() = %+v: want a boot id and a start time", self)
	}
	if gone, why := Gone(self); gone {
		t.Fatalf("this process counts as gone: %s", why)
	}
}

// A process that exited is gone; its id with another start time (a reused
// id) is gone too; another boot is gone.
func TestExitedProcessIsGone(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("process starts are read from /proc")
	}
	cmd := exec.Command("sleep", "60")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id := ID{PID: cmd.Process.Pid, BootID: Self().BootID, Start: startOf(cmd.Process.Pid)}
	if gone, why := Gone(id); gone {
		t.Fatalf("a running child counts as gone: %s", why)
	}
	cmd.Process.Kill()
	cmd.Wait()
	if gone, _ := Gone(id); !gone {
		t.Fatalf("a killed child counts as alive")
	}
	reused := Self()
	reused.Start++
	if gone, _ := Gone(reused); !gone {
		t.Fatal("a live id with another start time counts as alive")
	}
	other := Self()
	other.BootID = "another-boot"
	if gone, why := Gone(other); !gone || why != "the machine has restarted since" {
		t.Fatalf("another boot: gone=%v %q", gone, why)
	}
}
