"""The results store's tables (docs/reference/store.md), for tools that build a store
without running a survey: benchmarks and tests. The engine creates the same tables in C++."""

STORE_SQL = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE runs(run_key TEXT PRIMARY KEY, info TEXT, created TEXT);
CREATE TABLE cases(run_key TEXT, name TEXT, info TEXT, PRIMARY KEY(run_key, name));
CREATE TABLE excludes(run_key TEXT, name TEXT, info TEXT, PRIMARY KEY(run_key, name));
CREATE TABLE shards(run_key TEXT, shard INTEGER, shard_count INTEGER, paths TEXT,
  PRIMARY KEY(run_key, shard, shard_count));
CREATE TABLE records(run_key TEXT, case_name TEXT, path TEXT, status TEXT, seconds REAL,
  record TEXT, created TEXT, PRIMARY KEY(run_key, case_name, path));
CREATE TABLE dispatches(run_key TEXT, case_name TEXT, path TEXT, attempts INTEGER,
  PRIMARY KEY(run_key, case_name, path));
CREATE TABLE selections(run_key TEXT, only TEXT, tags TEXT, shard TEXT, registry_cases INTEGER,
  cases INTEGER, PRIMARY KEY(run_key, only, tags, shard));
INSERT INTO meta VALUES ('schema_version', '1');
"""
