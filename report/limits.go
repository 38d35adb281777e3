package report

// Limits that keep a page's size independent of the log's length.
const (
	// MaxListed is how many records the page lists: the last ones that
	// verified (the ones just before a break, when the log breaks).
	MaxListed = 200
	// MaxListedApprovals is how many approvals the page lists per family.
	MaxListedApprovals = 100
	// MaxRefusalGroups is how many (block, check, caveat) groups of
	// refusals a family keeps; refusals of further groups are counted.
	MaxRefusalGroups = 64
	// MaxDistinct is how many distinct tools, paths or hosts a family
	// counts; further values are counted together as others.
	MaxDistinct = 4096
	// TopN is how many of the most used tools, paths and hosts are shown.
	TopN = 10
	// MaxFamilies is how many families get a section; records of further
	// families are counted.
	MaxFamilies = 64
	// MaxBlocks is how many blocks (tree nodes) a family keeps.
	MaxBlocks = 256
	// TimelineColumns is the number of time buckets of a timeline.
	TimelineColumns = 120
	// MaxShownBytes bounds every agent-chosen string shown on the page.
	MaxShownBytes = 240
	// MaxIntents is how many intent records the page lists.
	MaxIntents = 20
)
