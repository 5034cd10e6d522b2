// Package directory is the folder scout: it watches a directory tree and
// reports each new or changed file as an item ("this new file looks like a
// note").
//
// # What is an item
//
// An item is a file's path together with its content: its ref is the path
// relative to the watched root (see FormatRef) followed by "@" and the first
// 16 hex digits of the SHA-256 of the content. The same path with new content
// is a new item; the same content at a new path is a new item; the same path
// with the same content is never reported twice, however often the file is
// touched, renamed back and forth or rescanned.
//
// # Globs
//
// Include and Exclude hold globs in path.Match syntax, extended the way
// .gitignore is:
//
//   - a glob without "/" matches an entry's base name at any depth
//     ("*.md" matches "a.md" and "notes/2024/b.md");
//   - a glob with "/" matches the slash-separated path relative to the
//     root, anchored at the root ("notes/*.md" matches "notes/a.md" but not
//     "x/notes/a.md"); a leading "/" is allowed and means the same;
//   - "**" as a whole path segment matches zero or more directories
//     ("**/drafts/*.md", "notes/**");
//   - a trailing "/" restricts the glob to directories ("build/").
//
// Exclude applies to files and directories; excluding a directory prunes
// its whole subtree, which is neither scanned nor watched. DefaultExcludes
// (hidden entries, editor and download temporary files) are always
// excluded in addition. Include applies to files only: directories are
// always descended into, and an empty Include means every file.
//
// # Scanning and the index
//
// The scout's memory is an Index, stored per directory so that a scan holds
// one directory's entries at a time: memory is proportional to the largest
// directory and the depth of the tree, never to the whole tree. An entry
// whose type, size and modification time match the index is skipped
// without being opened; a new or changed file is read once to hash it and
// to take its title and excerpt. Directory listings use Lstat-level
// information only and symbolic links are never followed: a link that
// points outside the root is reported once as a problem, a link inside the
// root is recorded silently (its target is scanned where it lives).
//
// While Watch runs, filesystem events mark directories dirty and the next
// scan lists those alone (and, in full, any new directory found in them); a
// full rescan runs after every start, once Watch has every directory under
// watch, periodically (RescanInterval) and whenever the event stream
// overflows. Without a running Watch every scan is a full one.
//
// Watches go through the agent's one watcher (package watchhub, passed in
// Options.Watches), whatever the number of scouts: inotify instances are
// few per user. A limit of the system reached (instances or watches) leaves
// the rest of the tree to the rescans, and is said once to
// Options.OnWatchLimit with the sysctl to raise.
//
// A file modified less than Settle ago is left for a later scan, so that a
// file still being written is not suggested half-written; that scan runs
// when the file has been quiet for Settle, counted from its modification
// time (not a whole Settle period after it was seen).
//
// On its first scan a scout created without IncludeExisting records what
// is already in the folder without suggesting it (the "baseline"), except
// files modified after the scout was created.
//
// # Scouts' own folders
//
// Options.Protected names folders no scout reads: the agent's data
// directory and its configuration. A root that is or is inside one is
// refused (CheckRoot, also in New, so a scout stored before the check does
// not run); one inside the root is skipped with all it holds, never listed
// nor watched. They are recognised with os.SameFile, whatever the spelling.
// The filesystem's root and pseudo-filesystems (/proc, /sys, /dev, cgroup
// and the like) are refused as roots as well, and a pseudo-filesystem
// mounted inside the tree is never descended into. CountFiles sizes a tree
// with the same rules, for warnings when a scout is created.
package directory
