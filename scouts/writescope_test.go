package scouts

import "testing"

func TestWriteScopeMatches(t *testing.T) {
	home := "/home/u"
	folders, def := WriteScope{}.Effective(ScopeFolders)
	if !def {
		t.Fatal("an unset folders list is not the default")
	}
	for dir, want := range map[string]bool{
		"/home/u/Sorted":            true,
		"/home/u/Sorted/2024/bills": true,
		"/home/u/.ssh":              false,
		"/home/u/SortedX":           false,
		"/home/u":                   false,
		"/home/u/Scans/Sorted":      false,
		"/home/u/Sorted/../.ssh":    false, // cleaned: /home/u/.ssh
	} {
		if got := MatchFolder(folders, home, dir); got != want {
			t.Errorf("MatchFolder(%v, %q) = %v, want %v", folders, dir, got, want)
		}
	}
	if !MatchFolder([]string{"~/Archive/*/done"}, home, "/home/u/Archive/2024/done") || MatchFolder([]string{"~/Archive/*/done"}, home, "/home/u/Archive/done") {
		t.Error("a * segment matches one folder")
	}
	if none, _ := (WriteScope{Folders: []string{}}).Effective(ScopeFolders); MatchFolder(none, home, "/home/u/Sorted") {
		t.Error("an empty list allows a folder")
	}
	labels, _ := WriteScope{}.Effective(ScopeLabels)
	for l, want := range map[string]bool{"Scouts": true, "scouts/Bills": true, "TRASH": false, "Receipts": false, "ScoutsX": false} {
		if got := MatchLabel(labels, l); got != want {
			t.Errorf("MatchLabel(%v, %q) = %v, want %v", labels, l, got, want)
		}
	}
	hosts, _ := WriteScope{}.Effective(ScopeHosts)
	for h, want := range map[string]bool{"127.0.0.1": true, "localhost": true, "::1": true, "hooks.example.com": false} {
		if got := MatchHost(hosts, h); got != want {
			t.Errorf("MatchHost(%v, %q) = %v, want %v", hosts, h, got, want)
		}
	}
	if !MatchHost([]string{"*.example.com"}, "Hooks.Example.com") || MatchHost([]string{"*.example.com"}, "example.com") || MatchHost([]string{"*.example.com"}, "evilexample.com") {
		t.Error("*.example.com matches names below example.com only")
	}
}

func TestWriteScopeValidate(t *testing.T) {
	for _, bad := range []WriteScope{
		{Folders: []string{"Sorted"}},
		{Folders: []string{"~/Sorted/../.ssh"}},
		{Folders: []string{"~/So**rted"}},
		{Folders: []string{"~/["}},
		{Labels: []string{""}},
		{Hosts: []string{"https://hooks.example.com/x"}},
		{Hosts: []string{"*."}},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("%+v: accepted", bad)
		}
	}
	good := WriteScope{Folders: []string{"~/Sorted/**", "/srv/inbox/*"}, Labels: []string{"Receipts/**"}, Hosts: []string{"hooks.example.com", "*.example.org", "::1"}}
	if err := good.Validate(); err != nil {
		t.Error(err)
	}
}
