// Package lend lets package verify borrow, for one verification, a ticket
// that package token parsed into pooled memory, without making the loan
// part of token's public API: a lent ticket's strings and byte slices are
// views of memory that the next loan overwrites, so nothing reached
// through it may outlive the loan. Package token sets the functions in
// its init; verify.VerifyText is their one caller.
package lend

// Parse parses text as token.Parse does, equally strictly, into pooled
// memory, and returns the ticket (a *token.Ticket). The ticket, and every
// string and slice reached through it, is valid until Return.
var Parse func(text string) (any, error)

// Return gives back a ticket Parse lent, which clears the memory that
// held it.
var Return func(any)
