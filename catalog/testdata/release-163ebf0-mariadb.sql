/*M!999999\- enable the sandbox mode */ 

/*!40101 SET @OLD_CHARACTER_SET_CLIENT=@@CHARACTER_SET_CLIENT */;
/*!40101 SET @OLD_CHARACTER_SET_RESULTS=@@CHARACTER_SET_RESULTS */;
/*!40101 SET @OLD_COLLATION_CONNECTION=@@COLLATION_CONNECTION */;
/*!40101 SET NAMES utf8mb4 */;
/*!40103 SET @OLD_TIME_ZONE=@@TIME_ZONE */;
/*!40103 SET TIME_ZONE='+00:00' */;
/*!40014 SET @OLD_UNIQUE_CHECKS=@@UNIQUE_CHECKS, UNIQUE_CHECKS=0 */;
/*!40014 SET @OLD_FOREIGN_KEY_CHECKS=@@FOREIGN_KEY_CHECKS, FOREIGN_KEY_CHECKS=0 */;
/*!40101 SET @OLD_SQL_MODE=@@SQL_MODE, SQL_MODE='NO_AUTO_VALUE_ON_ZERO' */;
/*!40111 SET @OLD_SQL_NOTES=@@SQL_NOTES, SQL_NOTES=0 */;
DROP TABLE IF EXISTS `audit_log`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `audit_log` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `time` datetime(6) NOT NULL,
  `token_id` varchar(64) NOT NULL,
  `token_name` varchar(255) NOT NULL,
  `role` varchar(16) NOT NULL,
  `method` varchar(16) NOT NULL,
  `path` longtext NOT NULL,
  `remote_addr` varchar(255) NOT NULL,
  `status` int(11) NOT NULL,
  `message` longtext NOT NULL,
  PRIMARY KEY (`id`),
  KEY `audit_log_time` (`time`)
) ENGINE=InnoDB AUTO_INCREMENT=2 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `audit_log` DISABLE KEYS */;
INSERT INTO `audit_log` VALUES
(1,'2025-03-01 12:00:06.123456','tok_370abb27eafe7e61','ops','admin','POST','/v1/jobs','127.0.0.1:5000',201,'job copy-release');
/*!40000 ALTER TABLE `audit_log` ENABLE KEYS */;
DROP TABLE IF EXISTS `clusters`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `clusters` (
  `name` varchar(191) NOT NULL,
  `zk_quorum` varchar(2000) NOT NULL,
  `znode_parent` varchar(255) NOT NULL,
  `hdfs_root` varchar(2000) NOT NULL,
  `user_name` varchar(255) NOT NULL,
  `site_files` longtext DEFAULT NULL,
  `created_at` datetime(6) NOT NULL,
  `updated_at` datetime(6) NOT NULL,
  PRIMARY KEY (`name`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `clusters` DISABLE KEYS */;
INSERT INTO `clusters` VALUES
('dc1','zk1:2181,zk2:2181','/hbase','hdfs://nn1:8020','hbase','{\"hbase-site.xml\":\"\\u003cconfiguration/\\u003e\\n\"}','2025-03-01 12:00:00.123456','2025-03-01 12:00:00.123456'),
('dc2','zk9:2181','/hbase','hdfs://nn9:8020','hbase',NULL,'2025-03-01 12:00:00.123456','2025-03-01 12:00:00.123456');
/*!40000 ALTER TABLE `clusters` ENABLE KEYS */;
DROP TABLE IF EXISTS `job_events`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `job_events` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `job_id` varchar(191) NOT NULL,
  `time` datetime(6) NOT NULL,
  `state` varchar(32) NOT NULL,
  `message` longtext NOT NULL,
  PRIMARY KEY (`id`),
  KEY `job_events_job` (`job_id`,`id`),
  CONSTRAINT `job_events_job` FOREIGN KEY (`job_id`) REFERENCES `jobs` (`id`) ON DELETE CASCADE
) ENGINE=InnoDB AUTO_INCREMENT=4 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `job_events` DISABLE KEYS */;
INSERT INTO `job_events` VALUES
(1,'copy-release','2025-03-01 12:00:01.123456','pending','submitted by ops'),
(2,'copy-release','2025-03-01 12:00:02.123456','running','planned 3 tasks'),
(3,'copy-release','2025-03-01 12:00:03.123456','done','done');
/*!40000 ALTER TABLE `job_events` ENABLE KEYS */;
DROP TABLE IF EXISTS `job_samples`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `job_samples` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `job_id` varchar(191) NOT NULL,
  `time` datetime(6) NOT NULL,
  `bytes_done` bigint(20) NOT NULL,
  PRIMARY KEY (`id`),
  KEY `job_samples_job` (`job_id`,`time`),
  CONSTRAINT `job_samples_job_fk` FOREIGN KEY (`job_id`) REFERENCES `jobs` (`id`) ON DELETE CASCADE
) ENGINE=InnoDB AUTO_INCREMENT=2 DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `job_samples` DISABLE KEYS */;
INSERT INTO `job_samples` VALUES
(1,'copy-release','2025-03-01 12:00:02.123456',4096);
/*!40000 ALTER TABLE `job_samples` ENABLE KEYS */;
DROP TABLE IF EXISTS `jobs`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `jobs` (
  `id` varchar(191) NOT NULL,
  `spec` longtext NOT NULL,
  `table_name` varchar(255) NOT NULL,
  `target_table` varchar(255) NOT NULL,
  `source_cluster` varchar(191) NOT NULL,
  `target_cluster` varchar(191) NOT NULL,
  `submitted_by` varchar(255) NOT NULL,
  `submitted_at` datetime(6) NOT NULL,
  `updated_at` datetime(6) NOT NULL,
  `state` varchar(32) NOT NULL,
  `last_error` longtext NOT NULL,
  `final_report` longtext NOT NULL,
  `idempotency_key` varchar(191) DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `jobs_idempotency_key` (`idempotency_key`),
  KEY `jobs_submitted` (`submitted_at`,`id`),
  KEY `jobs_state` (`state`),
  KEY `jobs_table` (`table_name`),
  KEY `jobs_source_cluster` (`source_cluster`),
  KEY `jobs_target_cluster` (`target_cluster`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `jobs` DISABLE KEYS */;
INSERT INTO `jobs` VALUES
('copy-release','{\"table\":\"ns:t1\",\"source\":\"dc1\",\"target\":\"dc2\"}','ns:t1','ns:t1','dc1','dc2','ops','2025-03-01 12:00:01.123456','2025-03-01 12:00:03.123456','done','','{\"bytes\":8192,\"files\":3}','key-1');
/*!40000 ALTER TABLE `jobs` ENABLE KEYS */;
DROP TABLE IF EXISTS `relocation_windows`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `relocation_windows` (
  `relocation_id` varchar(64) NOT NULL,
  `seq` int(11) NOT NULL,
  `kind` varchar(16) NOT NULL,
  `start_time` bigint(20) NOT NULL,
  `end_time` bigint(20) NOT NULL,
  `snapshot_time` bigint(20) NOT NULL,
  `job_ids` longtext NOT NULL,
  `bytes` bigint(20) NOT NULL,
  `files_loaded` bigint(20) NOT NULL,
  `files_pruned` bigint(20) NOT NULL,
  `started_at` datetime(6) NOT NULL,
  `finished_at` datetime(6) DEFAULT NULL,
  `duration_ms` bigint(20) NOT NULL,
  `lag_ms` bigint(20) NOT NULL,
  `outcome` varchar(16) NOT NULL,
  `why` longtext NOT NULL,
  PRIMARY KEY (`relocation_id`,`seq`),
  CONSTRAINT `relocation_windows_relocation` FOREIGN KEY (`relocation_id`) REFERENCES `relocations` (`id`) ON DELETE CASCADE
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `relocation_windows` DISABLE KEYS */;
INSERT INTO `relocation_windows` VALUES
('rel_0123456789abcdef',1,'full',0,0,1740830400000,'[\"copy-release\"]',8192,3,1,'2025-03-01 12:00:04.123456','2025-03-01 12:01:04.123456',60000,5000,'ran','');
/*!40000 ALTER TABLE `relocation_windows` ENABLE KEYS */;
DROP TABLE IF EXISTS `relocations`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `relocations` (
  `id` varchar(64) NOT NULL,
  `source_cluster` varchar(191) NOT NULL,
  `target_cluster` varchar(191) NOT NULL,
  `tables` longtext NOT NULL,
  `start_row` longtext NOT NULL,
  `stop_row` longtext NOT NULL,
  `families` longtext NOT NULL,
  `bandwidth` varchar(64) NOT NULL,
  `schedule` varchar(255) NOT NULL,
  `margin_ms` bigint(20) NOT NULL,
  `max_lag_ms` bigint(20) NOT NULL,
  `phase` varchar(32) NOT NULL,
  `resume_phase` varchar(32) NOT NULL,
  `why` longtext NOT NULL,
  `watermark` bigint(20) NOT NULL,
  `next_tick` datetime(6) DEFAULT NULL,
  `seq` int(11) NOT NULL,
  `running_seq` int(11) NOT NULL,
  `last_seq` int(11) NOT NULL,
  `verifying` tinyint(1) NOT NULL,
  `verification` longtext NOT NULL,
  `report` longtext NOT NULL,
  `created_by` varchar(255) NOT NULL,
  `created_at` datetime(6) NOT NULL,
  `updated_at` datetime(6) NOT NULL,
  `finished_at` datetime(6) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `relocations_created` (`created_at`,`id`),
  KEY `relocations_phase` (`phase`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `relocations` DISABLE KEYS */;
INSERT INTO `relocations` VALUES
('rel_0123456789abcdef','dc1','dc2','[{\"source\":\"ns:t1\",\"target\":\"ns:t1_new\"}]','','','[\"f\"]','','@hourly',1000,60000,'catching-up','','',1740830400000,'2025-03-01 13:00:04.123456',1,0,1,0,'','','ops','2025-03-01 12:00:04.123456','2025-03-01 12:00:04.123456',NULL);
/*!40000 ALTER TABLE `relocations` ENABLE KEYS */;
DROP TABLE IF EXISTS `schema_migrations`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `schema_migrations` (
  `version` bigint(20) NOT NULL,
  `name` varchar(255) NOT NULL,
  `applied_at` datetime(6) NOT NULL,
  PRIMARY KEY (`version`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `schema_migrations` DISABLE KEYS */;
INSERT INTO `schema_migrations` VALUES
(1,'clusters, jobs, job events, tokens, audit log','2025-03-01 12:00:00.123456'),
(2,'relocations and their windows','2025-03-01 12:00:00.123456'),
(3,'verifications','2025-03-01 12:00:00.123456'),
(4,'job samples','2025-03-01 12:00:00.123456');
/*!40000 ALTER TABLE `schema_migrations` ENABLE KEYS */;
DROP TABLE IF EXISTS `tokens`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `tokens` (
  `id` varchar(64) NOT NULL,
  `name` varchar(255) NOT NULL,
  `role` varchar(16) NOT NULL,
  `secret_hash` char(64) NOT NULL,
  `created_at` datetime(6) NOT NULL,
  `last_used_at` datetime(6) DEFAULT NULL,
  `revoked_at` datetime(6) DEFAULT NULL,
  PRIMARY KEY (`id`),
  UNIQUE KEY `tokens_secret_hash` (`secret_hash`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `tokens` DISABLE KEYS */;
INSERT INTO `tokens` VALUES
('tok_370abb27eafe7e61','ops','admin','a1f0eb227fef0241000e175048e2f2ea3e2fc2609548ddefbd64baa575a14446','2025-03-01 12:00:06.123456',NULL,NULL);
/*!40000 ALTER TABLE `tokens` ENABLE KEYS */;
DROP TABLE IF EXISTS `verifications`;
/*!40101 SET @saved_cs_client     = @@character_set_client */;
/*!40101 SET character_set_client = utf8mb4 */;
CREATE TABLE `verifications` (
  `id` varchar(64) NOT NULL,
  `spec` longtext NOT NULL,
  `state` varchar(16) NOT NULL,
  `report` longtext NOT NULL,
  `error` longtext NOT NULL,
  `runner` varchar(255) NOT NULL,
  `created_by` varchar(255) NOT NULL,
  `created_at` datetime(6) NOT NULL,
  `heartbeat_at` datetime(6) NOT NULL,
  `finished_at` datetime(6) DEFAULT NULL,
  PRIMARY KEY (`id`),
  KEY `verifications_created` (`created_at`,`id`),
  KEY `verifications_state` (`state`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
/*!40101 SET character_set_client = @saved_cs_client */;

/*!40000 ALTER TABLE `verifications` DISABLE KEYS */;
INSERT INTO `verifications` VALUES
('ver_0123456789abcdef','{\"table\":\"ns:t1\",\"source\":\"dc1\",\"target\":\"dc2\"}','passed','{\"batches\":4,\"mismatched\":0}','','server-1','ops','2025-03-01 12:00:05.123456','2025-03-01 12:00:06.123456','2025-03-01 12:00:06.123456');
/*!40000 ALTER TABLE `verifications` ENABLE KEYS */;
/*!40103 SET TIME_ZONE=@OLD_TIME_ZONE */;

/*!40101 SET SQL_MODE=@OLD_SQL_MODE */;
/*!40014 SET FOREIGN_KEY_CHECKS=@OLD_FOREIGN_KEY_CHECKS */;
/*!40014 SET UNIQUE_CHECKS=@OLD_UNIQUE_CHECKS */;
/*!40101 SET CHARACTER_SET_CLIENT=@OLD_CHARACTER_SET_CLIENT */;
/*!40101 SET CHARACTER_SET_RESULTS=@OLD_CHARACTER_SET_RESULTS */;
/*!40101 SET COLLATION_CONNECTION=@OLD_COLLATION_CONNECTION */;
/*!40111 SET SQL_NOTES=@OLD_SQL_NOTES */;

