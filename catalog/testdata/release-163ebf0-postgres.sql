--
-- PostgreSQL database dump
--

\restrict YgncmkZCJdiSuSYYbzPqG5LpN6W3eTxrwvldoGyp0tljz3bqYqP3i1g14dy57RF

-- Dumped from database version 15.18 (Debian 15.18-0+deb12u1)
-- Dumped by pg_dump version 15.18 (Debian 15.18-0+deb12u1)

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: audit_log; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.audit_log (
    id bigint NOT NULL,
    "time" timestamp with time zone NOT NULL,
    token_id character varying(64) NOT NULL,
    token_name character varying(255) NOT NULL,
    role character varying(16) NOT NULL,
    method character varying(16) NOT NULL,
    path text NOT NULL,
    remote_addr character varying(255) NOT NULL,
    status integer NOT NULL,
    message text NOT NULL
);


--
-- Name: audit_log_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: audit_log_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.audit_log_id_seq OWNED BY public.audit_log.id;


--
-- Name: clusters; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.clusters (
    name character varying(191) NOT NULL,
    zk_quorum character varying(2000) NOT NULL,
    znode_parent character varying(255) NOT NULL,
    hdfs_root character varying(2000) NOT NULL,
    user_name character varying(255) NOT NULL,
    site_files text,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL
);


--
-- Name: job_events; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_events (
    id bigint NOT NULL,
    job_id character varying(191) NOT NULL,
    "time" timestamp with time zone NOT NULL,
    state character varying(32) NOT NULL,
    message text NOT NULL
);


--
-- Name: job_events_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.job_events_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: job_events_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.job_events_id_seq OWNED BY public.job_events.id;


--
-- Name: job_samples; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.job_samples (
    id bigint NOT NULL,
    job_id character varying(191) NOT NULL,
    "time" timestamp with time zone NOT NULL,
    bytes_done bigint NOT NULL
);


--
-- Name: job_samples_id_seq; Type: SEQUENCE; Schema: public; Owner: -
--

CREATE SEQUENCE public.job_samples_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: job_samples_id_seq; Type: SEQUENCE OWNED BY; Schema: public; Owner: -
--

ALTER SEQUENCE public.job_samples_id_seq OWNED BY public.job_samples.id;


--
-- Name: jobs; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.jobs (
    id character varying(191) NOT NULL,
    spec text NOT NULL,
    table_name character varying(255) NOT NULL,
    target_table character varying(255) NOT NULL,
    source_cluster character varying(191) NOT NULL,
    target_cluster character varying(191) NOT NULL,
    submitted_by character varying(255) NOT NULL,
    submitted_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    state character varying(32) NOT NULL,
    last_error text NOT NULL,
    final_report text NOT NULL,
    idempotency_key character varying(191)
);


--
-- Name: relocation_windows; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.relocation_windows (
    relocation_id character varying(64) NOT NULL,
    seq integer NOT NULL,
    kind character varying(16) NOT NULL,
    start_time bigint NOT NULL,
    end_time bigint NOT NULL,
    snapshot_time bigint NOT NULL,
    job_ids text NOT NULL,
    bytes bigint NOT NULL,
    files_loaded bigint NOT NULL,
    files_pruned bigint NOT NULL,
    started_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone,
    duration_ms bigint NOT NULL,
    lag_ms bigint NOT NULL,
    outcome character varying(16) NOT NULL,
    why text NOT NULL
);


--
-- Name: relocations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.relocations (
    id character varying(64) NOT NULL,
    source_cluster character varying(191) NOT NULL,
    target_cluster character varying(191) NOT NULL,
    tables text NOT NULL,
    start_row text NOT NULL,
    stop_row text NOT NULL,
    families text NOT NULL,
    bandwidth character varying(64) NOT NULL,
    schedule character varying(255) NOT NULL,
    margin_ms bigint NOT NULL,
    max_lag_ms bigint NOT NULL,
    phase character varying(32) NOT NULL,
    resume_phase character varying(32) NOT NULL,
    why text NOT NULL,
    watermark bigint NOT NULL,
    next_tick timestamp with time zone,
    seq integer NOT NULL,
    running_seq integer NOT NULL,
    last_seq integer NOT NULL,
    verifying boolean NOT NULL,
    verification text NOT NULL,
    report text NOT NULL,
    created_by character varying(255) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    updated_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone
);


--
-- Name: schema_migrations; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.schema_migrations (
    version bigint NOT NULL,
    name character varying(255) NOT NULL,
    applied_at timestamp with time zone NOT NULL
);


--
-- Name: tokens; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.tokens (
    id character varying(64) NOT NULL,
    name character varying(255) NOT NULL,
    role character varying(16) NOT NULL,
    secret_hash character(64) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone,
    revoked_at timestamp with time zone
);


--
-- Name: verifications; Type: TABLE; Schema: public; Owner: -
--

CREATE TABLE public.verifications (
    id character varying(64) NOT NULL,
    spec text NOT NULL,
    state character varying(16) NOT NULL,
    report text NOT NULL,
    error text NOT NULL,
    runner character varying(255) NOT NULL,
    created_by character varying(255) NOT NULL,
    created_at timestamp with time zone NOT NULL,
    heartbeat_at timestamp with time zone NOT NULL,
    finished_at timestamp with time zone
);


--
-- Name: audit_log id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log ALTER COLUMN id SET DEFAULT nextval('public.audit_log_id_seq'::regclass);


--
-- Name: job_events id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_events ALTER COLUMN id SET DEFAULT nextval('public.job_events_id_seq'::regclass);


--
-- Name: job_samples id; Type: DEFAULT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_samples ALTER COLUMN id SET DEFAULT nextval('public.job_samples_id_seq'::regclass);


--
-- Data for Name: audit_log; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.audit_log VALUES (1, '2025-03-01 12:00:06.123456+00', 'tok_0312d7c4edccdb4d', 'ops', 'admin', 'POST', '/v1/jobs', '127.0.0.1:5000', 201, 'job copy-release');


--
-- Data for Name: clusters; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.clusters VALUES ('dc1', 'zk1:2181,zk2:2181', '/hbase', 'hdfs://nn1:8020', 'hbase', '{"hbase-site.xml":"\u003cconfiguration/\u003e\n"}', '2025-03-01 12:00:00.123456+00', '2025-03-01 12:00:00.123456+00');
INSERT INTO public.clusters VALUES ('dc2', 'zk9:2181', '/hbase', 'hdfs://nn9:8020', 'hbase', NULL, '2025-03-01 12:00:00.123456+00', '2025-03-01 12:00:00.123456+00');


--
-- Data for Name: job_events; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.job_events VALUES (1, 'copy-release', '2025-03-01 12:00:01.123456+00', 'pending', 'submitted by ops');
INSERT INTO public.job_events VALUES (2, 'copy-release', '2025-03-01 12:00:02.123456+00', 'running', 'planned 3 tasks');
INSERT INTO public.job_events VALUES (3, 'copy-release', '2025-03-01 12:00:03.123456+00', 'done', 'done');


--
-- Data for Name: job_samples; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.job_samples VALUES (1, 'copy-release', '2025-03-01 12:00:02.123456+00', 4096);


--
-- Data for Name: jobs; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.jobs VALUES ('copy-release', '{"table":"ns:t1","source":"dc1","target":"dc2"}', 'ns:t1', 'ns:t1', 'dc1', 'dc2', 'ops', '2025-03-01 12:00:01.123456+00', '2025-03-01 12:00:03.123456+00', 'done', '', '{"bytes":8192,"files":3}', 'key-1');


--
-- Data for Name: relocation_windows; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.relocation_windows VALUES ('rel_0123456789abcdef', 1, 'full', 0, 0, 1740830400000, '["copy-release"]', 8192, 3, 1, '2025-03-01 12:00:04.123456+00', '2025-03-01 12:01:04.123456+00', 60000, 5000, 'ran', '');


--
-- Data for Name: relocations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.relocations VALUES ('rel_0123456789abcdef', 'dc1', 'dc2', '[{"source":"ns:t1","target":"ns:t1_new"}]', '', '', '["f"]', '', '@hourly', 1000, 60000, 'catching-up', '', '', 1740830400000, '2025-03-01 13:00:04.123456+00', 1, 0, 1, false, '', '', 'ops', '2025-03-01 12:00:04.123456+00', '2025-03-01 12:00:04.123456+00', NULL);


--
-- Data for Name: schema_migrations; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.schema_migrations VALUES (1, 'clusters, jobs, job events, tokens, audit log', '2025-03-01 12:00:00.123456+00');
INSERT INTO public.schema_migrations VALUES (2, 'relocations and their windows', '2025-03-01 12:00:00.123456+00');
INSERT INTO public.schema_migrations VALUES (3, 'verifications', '2025-03-01 12:00:00.123456+00');
INSERT INTO public.schema_migrations VALUES (4, 'job samples', '2025-03-01 12:00:00.123456+00');


--
-- Data for Name: tokens; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.tokens VALUES ('tok_0312d7c4edccdb4d', 'ops', 'admin', '29ece3563adb631273b85f9ec465f7b5ce866125738693f793519af0c3ced6f9', '2025-03-01 12:00:06.123456+00', NULL, NULL);


--
-- Data for Name: verifications; Type: TABLE DATA; Schema: public; Owner: -
--

INSERT INTO public.verifications VALUES ('ver_0123456789abcdef', '{"table":"ns:t1","source":"dc1","target":"dc2"}', 'passed', '{"batches":4,"mismatched":0}', '', 'server-1', 'ops', '2025-03-01 12:00:05.123456+00', '2025-03-01 12:00:06.123456+00', '2025-03-01 12:00:06.123456+00');


--
-- Name: audit_log_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.audit_log_id_seq', 1, true);


--
-- Name: job_events_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.job_events_id_seq', 3, true);


--
-- Name: job_samples_id_seq; Type: SEQUENCE SET; Schema: public; Owner: -
--

SELECT pg_catalog.setval('public.job_samples_id_seq', 1, true);


--
-- Name: audit_log audit_log_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.audit_log
    ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);


--
-- Name: clusters clusters_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.clusters
    ADD CONSTRAINT clusters_pkey PRIMARY KEY (name);


--
-- Name: job_events job_events_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_events
    ADD CONSTRAINT job_events_pkey PRIMARY KEY (id);


--
-- Name: job_samples job_samples_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_samples
    ADD CONSTRAINT job_samples_pkey PRIMARY KEY (id);


--
-- Name: jobs jobs_idempotency_key; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_idempotency_key UNIQUE (idempotency_key);


--
-- Name: jobs jobs_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.jobs
    ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);


--
-- Name: relocation_windows relocation_windows_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.relocation_windows
    ADD CONSTRAINT relocation_windows_pkey PRIMARY KEY (relocation_id, seq);


--
-- Name: relocations relocations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.relocations
    ADD CONSTRAINT relocations_pkey PRIMARY KEY (id);


--
-- Name: schema_migrations schema_migrations_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.schema_migrations
    ADD CONSTRAINT schema_migrations_pkey PRIMARY KEY (version);


--
-- Name: tokens tokens_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT tokens_pkey PRIMARY KEY (id);


--
-- Name: tokens tokens_secret_hash; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.tokens
    ADD CONSTRAINT tokens_secret_hash UNIQUE (secret_hash);


--
-- Name: verifications verifications_pkey; Type: CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.verifications
    ADD CONSTRAINT verifications_pkey PRIMARY KEY (id);


--
-- Name: audit_log_time; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX audit_log_time ON public.audit_log USING btree ("time");


--
-- Name: job_events_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_events_job ON public.job_events USING btree (job_id, id);


--
-- Name: job_samples_job; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX job_samples_job ON public.job_samples USING btree (job_id, "time");


--
-- Name: jobs_source_cluster; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_source_cluster ON public.jobs USING btree (source_cluster);


--
-- Name: jobs_state; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_state ON public.jobs USING btree (state);


--
-- Name: jobs_submitted; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_submitted ON public.jobs USING btree (submitted_at, id);


--
-- Name: jobs_table; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_table ON public.jobs USING btree (table_name);


--
-- Name: jobs_target_cluster; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX jobs_target_cluster ON public.jobs USING btree (target_cluster);


--
-- Name: relocations_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX relocations_created ON public.relocations USING btree (created_at, id);


--
-- Name: relocations_phase; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX relocations_phase ON public.relocations USING btree (phase);


--
-- Name: verifications_created; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verifications_created ON public.verifications USING btree (created_at, id);


--
-- Name: verifications_state; Type: INDEX; Schema: public; Owner: -
--

CREATE INDEX verifications_state ON public.verifications USING btree (state);


--
-- Name: job_events job_events_job; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_events
    ADD CONSTRAINT job_events_job FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;


--
-- Name: job_samples job_samples_job_fk; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.job_samples
    ADD CONSTRAINT job_samples_job_fk FOREIGN KEY (job_id) REFERENCES public.jobs(id) ON DELETE CASCADE;


--
-- Name: relocation_windows relocation_windows_relocation; Type: FK CONSTRAINT; Schema: public; Owner: -
--

ALTER TABLE ONLY public.relocation_windows
    ADD CONSTRAINT relocation_windows_relocation FOREIGN KEY (relocation_id) REFERENCES public.relocations(id) ON DELETE CASCADE;


--
-- PostgreSQL database dump complete
--

\unrestrict YgncmkZCJdiSuSYYbzPqG5LpN6W3eTxrwvldoGyp0tljz3bqYqP3i1g14dy57RF

