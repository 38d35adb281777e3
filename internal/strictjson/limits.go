package strictjson

// Limits. All numeric policy of the package lives here.
const (
	// MaxDepth bounds the nesting of JSON values (spec/FORMAT.md §4.5): 32
	// levels of objects and arrays below the top-level value.
	MaxDepth = 32

	// smallMemberSet is how many member names of one object are checked
	// for duplicates by a linear scan before a map is used instead.
	smallMemberSet = 16
)
