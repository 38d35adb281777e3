package pathcheck

// Limits. All numeric policy of the package lives here.
const (
	// MaxLinkHops bounds the symbolic links followed when resolving one
	// path, as the kernel's ELOOP does.
	MaxLinkHops = 40
)
