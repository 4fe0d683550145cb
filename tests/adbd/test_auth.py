import pytest

from mobileintent_gym.adbd.auth import KeyFormatError, load_keys, parse_public_key


def test_signature_of_the_token_verifies_and_nothing_else_does(test_key, other_key):
    token = bytes(range(20))
    signature = test_key.sign(token)
    assert test_key.public.verify(token, signature)
    assert not test_key.public.verify(bytes(20), signature)
    assert not other_key.public.verify(token, signature)
    assert not test_key.public.verify(token, signature[:-1])


def test_public_key_line_round_trips(test_key):
    line = test_key.public.encode()
    assert line.endswith(" test1@host")
    assert parse_public_key(line + "\n") == test_key.public
    assert parse_public_key(line.encode() + b"\x00") == test_key.public


def test_malformed_keys_are_rejected_with_the_text():
    with pytest.raises(KeyFormatError, match="not base64"):
        parse_public_key("!!!! user@host")
    with pytest.raises(KeyFormatError, match="key struct is 3 bytes"):
        parse_public_key("YWJj user@host")


def test_allow_list_skips_comments_and_names_the_bad_line(tmp_path, test_key, other_key):
    good = tmp_path / "keys"
    good.write_text(f"# team keys\n{test_key.public.encode()}\n\n{other_key.public.encode()}\n")
    assert load_keys(good) == (test_key.public, other_key.public)
    bad = tmp_path / "bad"
    bad.write_text(f"{test_key.public.encode()}\nnot-a-key\n")
    with pytest.raises(KeyFormatError, match=r"bad:2: .*not-a-key"):
        load_keys(bad)
    comments = tmp_path / "comments"
    comments.write_text("# team keys\n\n")
    with pytest.raises(KeyFormatError, match="comments holds no key"):
        load_keys(comments)
