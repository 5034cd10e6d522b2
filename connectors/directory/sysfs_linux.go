package directory

import "syscall"

// pseudoFilesystems are the statfs magic numbers (linux/magic.h) of the
// kernel's virtual filesystems: they hold no documents, some of their files
// block or have side effects when read, and /proc alone produced thousands
// of cards. devtmpfs reports tmpfs's number: /dev is in systemFolders.
var pseudoFilesystems = map[int64]string{
	0x9fa0:     "proc",
	0x62656572: "sysfs",
	0x1cd1:     "devpts",
	0x27e0eb:   "cgroup",
	0x63677270: "cgroup2",
	0x64626720: "debugfs",
	0x74726163: "tracefs",
	0x73636673: "securityfs",
	0xcafe4a11: "bpf",
	0x6165676c: "pstore",
	0x62656570: "configfs",
	0x65735543: "fusectl",
	0x42494e4d: "binfmt_misc",
	0xf97cff8c: "selinuxfs",
	0x43415d53: "smackfs",
	0xde5e81e4: "efivarfs",
	0x6e736673: "nsfs",
	0x19800202: "mqueue",
	0x958458f6: "hugetlbfs",
}

// pseudoFS reports the kind of pseudo-filesystem the folder at path is on.
func pseudoFS(path string) (string, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(path, &st); err != nil {
		return "", false
	}
	kind, ok := pseudoFilesystems[int64(st.Type)]
	return kind, ok
}
