// Package report turns a receipt log into one self-contained HTML page an
// auditor reads: the verdict of the log's verification, then per ticket
// family the delegation tree, the budgets, a timeline of decisions, the
// refusals, the approvals and the most used tools, paths and hosts.
//
// The page is only as good as the verification behind it, so this package
// verifies nothing itself: [Build] runs [chain.VerifyFile], the code
// "tickettool receipt verify" runs, and aggregates exactly the records it
// hands to [chain.VerifyOptions.Each], which are the records that verified,
// in order. A log that breaks shows the records before the break and the
// break itself; nothing after the break is read into the page. A log that
// verifies but does not match its checkpoint is shown as failing.
//
// Receipts hold strings an agent chose (tool names, paths, hosts, notes,
// reasons). [Report.WriteHTML] renders every one through html/template,
// with control and bidirectional-formatting characters written as \uXXXX
// escapes and long values cut ([MaxShownBytes]), so no record can run a
// script, fetch anything or break the layout. The page carries a
// Content-Security-Policy that forbids every fetch and every script
// (default-src 'none'), holds its style inline, has no script at all
// (folding uses <details>), and so reads the same with scripts disabled.
//
// Tickets given beside the log ([Options].Tickets), verified by the caller
// under the root key or marked not verified, supply the scope of blocks
// the log has no minting or delegation receipt for, the codes of their
// approvals, and, with a store's figures, each budget's captured and
// reserved use.
//
// The page's size does not grow with the log: records are counted, the
// record list keeps the last [MaxListed] records, at most [MaxFamilies]
// families get a section (the records of others are counted) with at most
// [MaxBlocks] blocks, [MaxListedApprovals] approvals, [MaxRefusalGroups]
// refusal groups and [MaxDistinct] distinct tools, paths and hosts each
// (the rest counted as others), and a timeline has [TimelineColumns]
// columns.
package report
