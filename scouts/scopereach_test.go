package scouts

import "testing"

func TestFolderScopeReaches(t *testing.T) {
	for _, c := range []struct {
		globs []string
		dir   string
		want  bool
	}{
		{[]string{"~/Sorted/**"}, "/home/u/Inbox", false},
		{[]string{"~/Sorted/**"}, "/home/u/Sorted/Bills", true},
		{[]string{"~/Sorted/**"}, "/home/u", true},
		{[]string{"~/Inbox"}, "/home/u/Inbox", true},
		{[]string{"/home/u/Inbox/sub"}, "/home/u/Inbox", true},
		{[]string{"/home/u"}, "/home/u/Inbox", false},
		{[]string{"~/*/Done"}, "/home/u/Inbox", true},
		{[]string{"~/A*/Done"}, "/home/u/Inbox", false},
		{[]string{"/**/Done"}, "/srv/x", true},
		{[]string{}, "/home/u", false},
	} {
		if got := FolderScopeReaches(c.globs, "/home/u", c.dir); got != c.want {
			t.Errorf("FolderScopeReaches(%v, %s) = %v, want %v", c.globs, c.dir, got, c.want)
		}
	}
}
