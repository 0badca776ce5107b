// Package epoch will hold the rules that tell a fresh view of a partition
// from a stale one: broker-side validation of the leader epoch a request
// carries (FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH, NOT_LEADER_OR_FOLLOWER,
// KIP-951 leader hints), and the client-side rule that an answer with an
// older leader epoch never replaces a newer one.
//
// It is not written yet; see the project's issues "Answering clients from
// the image" and "The client side".
package epoch
