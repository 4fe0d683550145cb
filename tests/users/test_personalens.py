"""All 40 PersonaLens profiles load and build (skipped without ../shared/data)."""


from mobileintent_gym.users import CONTEXTS, PairConfig, build_user_content, load_profile, match_key


def test_every_personalens_profile_loads_and_builds(personalens_dir, sentence_encoder):
    paths = sorted(personalens_dir.glob("user*.json"))
    assert len(paths) == 40
    profiles = [load_profile(p) for p in paths]
    assert [p.user_id for p in profiles] == [p.stem for p in paths]
    # They name nobody: the phone shows a name made of the id, "User 12" for user12.
    assert all("name" not in p.demographics for p in profiles)
    assert [p.name for p in profiles] == [f"User {p.stem[4:]}" for p in paths]
    genre = {e.id: match_key(e.record["genre"]) for e in CONTEXTS["music:liked"].pool.entities()}
    config = PairConfig(encoder=sentence_encoder)
    for profile in profiles:
        content = build_user_content(profile, config)
        assert content.user_id == profile.user_id
        # Every list is full: the pools are large enough for any of these users.
        assert {key: len(items.personal) for key, items in content.contexts.items()} == {
            key: config.size(spec) - len(spec.common) for key, spec in CONTEXTS.items()}
        # Every user's genres are in the pool, so exact matches dominate Liked Songs.
        liked = content.contexts["music:liked"].personal
        wanted = {match_key(g) for g in profile.affinities["Music"]["Preferred Genres"]}
        assert sum(genre[i] in wanted for i in liked) >= 12, profile.user_id
