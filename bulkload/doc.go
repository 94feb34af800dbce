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
// A worker uses it like this:
//
//	wd, err := bulkload.OpenWorkDir(ctx, fs, jobID, bulkload.WorkDirOptions{})
//	l, err := bulkload.NewLoader(ctx, bulkload.LoaderConfig{Client: target, FS: fs, Table: table})
//	defer l.Close(ctx)
//	name, fw, err := wd.Create(ctx, taskID, family) // write an HFile into fw
//	err = bulkload.CloseFile(ctx, fw, name)
//	err = l.Load(ctx, bulkload.File{Family: family, Path: name})
//	err = wd.RemoveTask(ctx, taskID) // when the task is done; wd.Remove at the end of the job
//
// EnsureTable checks (or creates) the target table before a copy touches it,
// and SplitKeys computes where a created table is pre-split.
package bulkload
