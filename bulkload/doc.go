// Package bulkload stages finished output HFiles in the target cluster's HDFS
// and bulk loads them, region by region, into the target table.
//
// A WorkDir is the job's folder on the target HDFS (default
// /user/<user>/.rangecopy/<job-id>), with one folder per task and family. Its
// folders are world-writable so that the region server can move a file out of
// it: a bulk load is a rename, not a copy.
//
// A Loader loads one file at a time into the region that owns its rows. It
// checks the file before asking the region server (which hides most failures
// behind loaded=false), follows regions that moved, re-splits a file whose
// region split or merged since it was written, and gives up at once on an
// unknown table or family. Loading the same file twice only adds identical
// cells, so a load repeated after a crash is harmless.
//
// HFileWriter is the one way rangecopy writes an HFile of decoded cells (a
// task's output file, a re-split part): under a temporary name that bulk
// loads skip, renamed to a fresh store file name once complete.
//
// Every file operation goes through an fsys.FS: an fsys.HDFS in production,
// an fsys.Local in unit tests. A worker uses it like this:
//
//	wd, err := bulkload.OpenWorkDir(ctx, fs, jobID, bulkload.WorkDirOptions{User: user})
//	l, err := bulkload.NewLoader(ctx, bulkload.LoaderConfig{Client: target, FS: fs, Table: table})
//	defer l.Close(ctx)
//	dir, err := wd.FamilyDir(ctx, taskID, family)
//	w, err := bulkload.CreateHFile(ctx, fs, dir, opts, fsys.CreateOptions{}) // w.Append each cell
//	err = w.Close(ctx)
//	err = l.Load(ctx, bulkload.File{Family: family, Path: w.Path()})
//	err = wd.RemoveTask(ctx, taskID) // when the task is done; wd.Remove at the end of the job
//
// EnsureTable checks (or creates) the target table before a copy touches it,
// and SplitKeys computes where a created table is pre-split.
package bulkload
