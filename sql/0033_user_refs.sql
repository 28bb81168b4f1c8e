-- The key of every user's basic and single views: 5 (kind 5 of id 0 in the keys of
-- sql/0010_cache_keys.sql). The workers keep copies of user records for the lists that
-- name their users by id (src/entity/user.h, USER_REF) while the sum of the versions of
-- keys 0 and 5 stays the same: a transaction that changes a column those views show
-- (username, name, state, avatar, created_at and the profile strings) or deletes a user
-- bumps key 5 at its commit, with the user's own keys. A new user bumps nothing: no
-- copy of it can be there yet.
CREATE OR REPLACE FUNCTION cache_bump_users() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF TG_OP = 'DELETE' THEN
		PERFORM cache_collect(OLD.id * 16 + 1, cache_stripe(1, OLD.id), 5);
	ELSIF TG_OP = 'INSERT' THEN
		PERFORM cache_collect(NEW.id * 16 + 1, cache_stripe(1, NEW.id));
	ELSE
		-- the lists filter on state, names, email, external, created_at (and ghost)
		PERFORM cache_collect(OLD.id * 16 + 1, NEW.id * 16 + 1,
			CASE WHEN cache_differs(to_jsonb(OLD), to_jsonb(NEW), ARRAY['is_admin',
				'password_hash', 'password_expires_at', 'bio', 'location', 'skype',
				'linkedin', 'twitter', 'website_url', 'organization', 'projects_limit',
				'can_create_group', 'theme_id', 'color_scheme_id', 'avatar',
				'confirmed_at', 'last_sign_in_at', 'current_sign_in_at',
				'last_activity_on', 'updated_at', 'notification_email'])
			THEN cache_stripe(1, NEW.id) END,
			CASE WHEN (OLD.username, OLD.name, OLD.state, OLD.avatar, OLD.created_at,
				OLD.bio, OLD.location, OLD.skype, OLD.linkedin, OLD.twitter,
				OLD.website_url, OLD.organization)
				IS DISTINCT FROM (NEW.username, NEW.name, NEW.state, NEW.avatar,
				NEW.created_at, NEW.bio, NEW.location, NEW.skype, NEW.linkedin,
				NEW.twitter, NEW.website_url, NEW.organization)
			THEN 5 END);
	END IF;
	RETURN NULL;
END $$;
