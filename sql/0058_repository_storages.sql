-- Repository storages (issue 34): the storage a project's repository and wiki live on,
-- by the name the configuration's repository_storages gives it (core/storages.h), and
-- whether its repository is read-only while `collabd move-storage` copies it to another
-- storage (GitLab 10.8's two columns of the same names). 'default' is the storage of
-- every project made before: storage_path unless configured otherwise.
ALTER TABLE projects
	ADD COLUMN repository_storage text NOT NULL DEFAULT 'default',
	ADD COLUMN repository_read_only boolean NOT NULL DEFAULT false;
