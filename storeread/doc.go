// Package storeread reads a store's files the way an HBase region server
// serves them, for the copy (worker) and the verification (verify) alike:
// which file is older (CompareAge, AgeOf), the k-way merge that keeps one
// cell per key (Merged), and where a store file went when HBase moved it
// after planning (ArchiveFallback).
//
// # Identical keys
//
// Two cells with the same row, family, qualifier, timestamp and type are the
// same key to HBase, which serves the one its KeyValueHeap puts first: the
// larger sequence id, then the newer store file. Merged keeps exactly one
// cell per key, chosen the same way:
//
//  1. the larger sequence id of the cell: its MVCC value as stored, or, in a
//     file HBase treats as bulk loaded (a "_SeqId_<n>_" name or a
//     BULKLOAD_TIMESTAMP in its file info), the file's sequence id, which the
//     region server stamps on every cell of such a file (Input.Stamped);
//  2. then the newer file, ranked as HBase's StoreFileComparators.SEQ_ID
//     ranks them (CompareAge): max sequence id (the one in a bulk-loaded
//     file's name, and one more than the parent's for the top half of a
//     split reference, as HStoreFile.open does), then the smaller size, then
//     the later bulk load time, then the larger path name;
//  3. within one file the first cell of a key wins, since a file sorts equal
//     keys by sequence id descending.
//
// Every version and every delete marker is kept.
package storeread
