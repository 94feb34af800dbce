PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
CREATE TABLE schema_migrations (
  version BIGINT NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  applied_at DATETIME NOT NULL
);
INSERT INTO schema_migrations VALUES(1,'clusters, jobs, job events, tokens, audit log','2025-03-01 12:00:00.123456+00:00');
INSERT INTO schema_migrations VALUES(2,'relocations and their windows','2025-03-01 12:00:00.123456+00:00');
INSERT INTO schema_migrations VALUES(3,'verifications','2025-03-01 12:00:00.123456+00:00');
INSERT INTO schema_migrations VALUES(4,'job samples','2025-03-01 12:00:00.123456+00:00');
CREATE TABLE clusters (
  name VARCHAR(191) NOT NULL PRIMARY KEY,
  zk_quorum VARCHAR(2000) NOT NULL,
  znode_parent VARCHAR(255) NOT NULL,
  hdfs_root VARCHAR(2000) NOT NULL,
  user_name VARCHAR(255) NOT NULL,
  site_files TEXT NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL
);
INSERT INTO clusters VALUES('dc1','zk1:2181,zk2:2181','/hbase','hdfs://nn1:8020','hbase','{"hbase-site.xml":"\u003cconfiguration/\u003e\n"}','2025-03-01 12:00:00.123456+00:00','2025-03-01 12:00:00.123456+00:00');
INSERT INTO clusters VALUES('dc2','zk9:2181','/hbase','hdfs://nn9:8020','hbase',NULL,'2025-03-01 12:00:00.123456+00:00','2025-03-01 12:00:00.123456+00:00');
CREATE TABLE jobs (
  id VARCHAR(191) NOT NULL PRIMARY KEY,
  spec TEXT NOT NULL,
  table_name VARCHAR(255) NOT NULL,
  target_table VARCHAR(255) NOT NULL,
  source_cluster VARCHAR(191) NOT NULL,
  target_cluster VARCHAR(191) NOT NULL,
  submitted_by VARCHAR(255) NOT NULL,
  submitted_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  state VARCHAR(32) NOT NULL,
  last_error TEXT NOT NULL,
  final_report TEXT NOT NULL,
  idempotency_key VARCHAR(191) NULL,
  CONSTRAINT jobs_idempotency_key UNIQUE (idempotency_key)
);
INSERT INTO jobs VALUES('copy-release','{"table":"ns:t1","source":"dc1","target":"dc2"}','ns:t1','ns:t1','dc1','dc2','ops','2025-03-01 12:00:01.123456+00:00','2025-03-01 12:00:03.123456+00:00','done','','{"bytes":8192,"files":3}','key-1');
CREATE TABLE job_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id VARCHAR(191) NOT NULL,
  time DATETIME NOT NULL,
  state VARCHAR(32) NOT NULL,
  message TEXT NOT NULL,
  CONSTRAINT job_events_job FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE
);
INSERT INTO job_events VALUES(1,'copy-release','2025-03-01 12:00:01.123456+00:00','pending','submitted by ops');
INSERT INTO job_events VALUES(2,'copy-release','2025-03-01 12:00:02.123456+00:00','running','planned 3 tasks');
INSERT INTO job_events VALUES(3,'copy-release','2025-03-01 12:00:03.123456+00:00','done','done');
CREATE TABLE tokens (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  secret_hash CHAR(64) NOT NULL,
  created_at DATETIME NOT NULL,
  last_used_at DATETIME NULL,
  revoked_at DATETIME NULL,
  CONSTRAINT tokens_secret_hash UNIQUE (secret_hash)
);
INSERT INTO tokens VALUES('tok_3874d51d92815c3f','ops','admin','2048f02ccd75d1eddeeb9b36a1b6e846ebe411a3427423660935466b1f723b0e','2025-03-01 12:00:06.123456+00:00',NULL,NULL);
CREATE TABLE audit_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  time DATETIME NOT NULL,
  token_id VARCHAR(64) NOT NULL,
  token_name VARCHAR(255) NOT NULL,
  role VARCHAR(16) NOT NULL,
  method VARCHAR(16) NOT NULL,
  path TEXT NOT NULL,
  remote_addr VARCHAR(255) NOT NULL,
  status INTEGER NOT NULL,
  message TEXT NOT NULL
);
INSERT INTO audit_log VALUES(1,'2025-03-01 12:00:06.123456+00:00','tok_3874d51d92815c3f','ops','admin','POST','/v1/jobs','127.0.0.1:5000',201,'job copy-release');
CREATE TABLE relocations (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  source_cluster VARCHAR(191) NOT NULL,
  target_cluster VARCHAR(191) NOT NULL,
  tables TEXT NOT NULL,
  start_row TEXT NOT NULL,
  stop_row TEXT NOT NULL,
  families TEXT NOT NULL,
  bandwidth VARCHAR(64) NOT NULL,
  schedule VARCHAR(255) NOT NULL,
  margin_ms BIGINT NOT NULL,
  max_lag_ms BIGINT NOT NULL,
  phase VARCHAR(32) NOT NULL,
  resume_phase VARCHAR(32) NOT NULL,
  why TEXT NOT NULL,
  watermark BIGINT NOT NULL,
  next_tick DATETIME NULL,
  seq INTEGER NOT NULL,
  running_seq INTEGER NOT NULL,
  last_seq INTEGER NOT NULL,
  verifying BOOLEAN NOT NULL,
  verification TEXT NOT NULL,
  report TEXT NOT NULL,
  created_by VARCHAR(255) NOT NULL,
  created_at DATETIME NOT NULL,
  updated_at DATETIME NOT NULL,
  finished_at DATETIME NULL
);
INSERT INTO relocations VALUES('rel_0123456789abcdef','dc1','dc2','[{"source":"ns:t1","target":"ns:t1_new"}]','','','["f"]','','@hourly',1000,60000,'catching-up','','',1740830400000,'2025-03-01 13:00:04.123456+00:00',1,0,1,0,'','','ops','2025-03-01 12:00:04.123456+00:00','2025-03-01 12:00:04.123456+00:00',NULL);
CREATE TABLE relocation_windows (
  relocation_id VARCHAR(64) NOT NULL,
  seq INTEGER NOT NULL,
  kind VARCHAR(16) NOT NULL,
  start_time BIGINT NOT NULL,
  end_time BIGINT NOT NULL,
  snapshot_time BIGINT NOT NULL,
  job_ids TEXT NOT NULL,
  bytes BIGINT NOT NULL,
  files_loaded BIGINT NOT NULL,
  files_pruned BIGINT NOT NULL,
  started_at DATETIME NOT NULL,
  finished_at DATETIME NULL,
  duration_ms BIGINT NOT NULL,
  lag_ms BIGINT NOT NULL,
  outcome VARCHAR(16) NOT NULL,
  why TEXT NOT NULL,
  PRIMARY KEY (relocation_id, seq),
  CONSTRAINT relocation_windows_relocation FOREIGN KEY (relocation_id) REFERENCES relocations (id) ON DELETE CASCADE
);
INSERT INTO relocation_windows VALUES('rel_0123456789abcdef',1,'full',0,0,1740830400000,'["copy-release"]',8192,3,1,'2025-03-01 12:00:04.123456+00:00','2025-03-01 12:01:04.123456+00:00',60000,5000,'ran','');
CREATE TABLE verifications (
  id VARCHAR(64) NOT NULL PRIMARY KEY,
  spec TEXT NOT NULL,
  state VARCHAR(16) NOT NULL,
  report TEXT NOT NULL,
  error TEXT NOT NULL,
  runner VARCHAR(255) NOT NULL,
  created_by VARCHAR(255) NOT NULL,
  created_at DATETIME NOT NULL,
  heartbeat_at DATETIME NOT NULL,
  finished_at DATETIME NULL
);
INSERT INTO verifications VALUES('ver_0123456789abcdef','{"table":"ns:t1","source":"dc1","target":"dc2"}','passed','{"batches":4,"mismatched":0}','','server-1','ops','2025-03-01 12:00:05.123456+00:00','2025-03-01 12:00:06.123456+00:00','2025-03-01 12:00:06.123456+00:00');
CREATE TABLE job_samples (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  job_id VARCHAR(191) NOT NULL,
  time DATETIME NOT NULL,
  bytes_done BIGINT NOT NULL,
  CONSTRAINT job_samples_job_fk FOREIGN KEY (job_id) REFERENCES jobs (id) ON DELETE CASCADE
);
INSERT INTO job_samples VALUES(1,'copy-release','2025-03-01 12:00:02.123456+00:00',4096);
DELETE FROM sqlite_sequence;
INSERT INTO sqlite_sequence VALUES('job_events',3);
INSERT INTO sqlite_sequence VALUES('job_samples',1);
INSERT INTO sqlite_sequence VALUES('audit_log',1);
CREATE INDEX jobs_submitted ON jobs (submitted_at, id);
CREATE INDEX jobs_state ON jobs (state);
CREATE INDEX jobs_table ON jobs (table_name);
CREATE INDEX jobs_source_cluster ON jobs (source_cluster);
CREATE INDEX jobs_target_cluster ON jobs (target_cluster);
CREATE INDEX job_events_job ON job_events (job_id, id);
CREATE INDEX audit_log_time ON audit_log (time);
CREATE INDEX relocations_created ON relocations (created_at, id);
CREATE INDEX relocations_phase ON relocations (phase);
CREATE INDEX verifications_created ON verifications (created_at, id);
CREATE INDEX verifications_state ON verifications (state);
CREATE INDEX job_samples_job ON job_samples (job_id, time);
COMMIT;
