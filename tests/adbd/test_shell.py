import re

import pytest

from mobileintent_gym.adbd.commands import FileCommands, basic_commands
from mobileintent_gym.adbd.filesystem import MemoryFileSystem
from mobileintent_gym.adbd.limits import ShellLimits
from mobileintent_gym.adbd.regex_pool import RegexPool
from mobileintent_gym.adbd.shell import Shell
from mobileintent_gym.adbd.shellparse import Part, ShellSyntaxError, parse


@pytest.fixture(scope="module")
def pool():
    pool = RegexPool()
    yield pool
    pool.close()


@pytest.fixture
def shell(pool) -> Shell:
    fs = MemoryFileSystem()
    return Shell({**basic_commands(pool, fs), **FileCommands(fs).table()}, fs, {"HOME": "/"})


def run(shell: Shell, line: str) -> tuple[str, str, int]:
    result = shell.run(line)
    return result.stdout.decode(), result.stderr.decode(), result.code


def test_quotes_follow_sh_rules(shell):
    assert run(shell, """echo 'a;b' "c $HOME" d\\;e 'it'\\''s'""")[0] == "a;b c / d;e it's\n"


def test_empty_double_quotes_are_an_empty_word(shell):
    # "" vanished where '' was an empty argument: `am start --es msg ""` lost its value,
    # `[ -z "" ]` became `[ -z ]`.
    assert run(shell, 'echo a "" b')[0] == "a  b\n"
    assert shell.history[-1] == ("echo", "a", "", "b")
    assert run(shell, 'echo ""x ""')[0] == "x \n"


def test_sequencing_and_short_circuit(shell):
    assert run(shell, "echo a; false && echo no || echo yes; echo $?") == ("a\nyes\n0\n", "", 0)
    assert run(shell, "true && false")[2] == 1


def test_unknown_command_exits_127_with_androids_message(shell):
    out, err, code = run(shell, "frobnicate --now")
    assert (out, code) == ("", 127)
    assert err == "/system/bin/sh: frobnicate: inaccessible or not found\n"


def test_command_substitution_runs_unless_quoted(shell):
    assert run(shell, "echo $(id) `echo x`")[0].startswith("uid=2000(shell)")
    assert run(shell, "echo '$(id)'")[0] == "$(id)\n"
    assert ("id",) in shell.history


def test_pipes_into_grep(shell):
    assert run(shell, "echo 'one\ntwo\nthree' | grep -v o")[0] == "three\n"
    assert run(shell, "echo 'mCurrentRotation=ROTATION_0' | grep mCurrentRotation")[2] == 0
    assert run(shell, "echo abc | grep -c 'b\\|z'")[0] == "1\n"
    assert run(shell, "echo abc | grep -c 'b|z'")[0] == "0\n"
    assert run(shell, "echo abc | grep -E 'b|z'")[0] == "abc\n"
    assert run(shell, "echo abc | grep zzz")[2] == 1


def test_grep_takes_e_patterns_double_dash_and_posix_classes(shell):
    # [[:digit:]] went to Python's re as it was (a silent miss, status 1), and -e PATTERN
    # was the pattern "-e" and a file named PATTERN.
    assert run(shell, "echo 'abc 123' | grep -cE '[[:digit:]]+'")[0] == "1\n"
    assert run(shell, "echo 'a b' | grep -c 'a[[:space:]]b'")[0] == "1\n"
    assert run(shell, "echo 'abc' | grep -c '[^[:alpha:]]'") == ("0\n", "", 1)
    assert run(shell, "echo hello | grep -e hello") == ("hello\n", "", 0)
    assert run(shell, "echo 'one\ntwo' | grep -e one -e wo")[0] == "one\ntwo\n"
    assert run(shell, "echo HI | grep -c -ie hi")[0] == "1\n"
    assert run(shell, "echo -x | grep -- -x")[0] == "-x\n"
    assert run(shell, "echo x | grep -e") == ("", "grep: option requires an argument -- 'e'\n", 2)
    assert run(shell, "echo 1 | grep '[[:digits:]]'")[2] == 2  # no such class
    # A class outside brackets was read as the text "0-9": status 1, silently.
    assert run(shell, "echo 1 | grep '[:digit:]'") == (
        "", "grep: character class syntax is [[:digit:]], not [:digit:]\n", 2)
    assert run(shell, "echo 1 | grep -c '[^[:alpha:]x]'")[0] == "1\n"
    # An escaped bracket is text: its "[:digit:]" is no class (it became "\\0-9").
    assert run(shell, "echo 'x[:digit:]' | grep -c 'x\\[:digit:]'") == ("1\n", "", 0)


def test_mkdir_and_touch_try_every_operand(shell):
    # Both stopped at the first bad operand, so `adb push` of a folder (mkdir of the
    # existing target first) made none of its empty folders.
    _, err, code = run(shell, "mkdir /sdcard /sdcard/m1 /sdcard/m2")
    assert (err, code) == ("mkdir: '/sdcard': File exists\n", 1)
    assert run(shell, "ls /sdcard")[0].split() == ["m1", "m2"]
    _, err, code = run(shell, "touch /system/t0 /sdcard/t1")
    assert code == 1 and err.startswith("touch: /system/t0")
    assert run(shell, "ls /sdcard/t1")[2] == 0


@pytest.mark.parametrize(("options", "named"), [
    ("-n", "-n"), ("-A1", "-A"), ("-cn", "-n"), ("--color=never", "--color"), ("-P", "-P")])
def test_a_grep_option_it_lacks_is_named(shell, options, named):
    # It became the pattern, and the pattern a file: "grep: /mCurrentFocus: No such file".
    out, err, code = run(shell, f"echo mCurrentFocus=x | grep {options} mCurrentFocus")
    assert (out, code) == ("", 2)
    assert err == f"grep: unknown option {named!r} (this grep has -EFcioqv, -e PATTERN and --)\n"


@pytest.mark.parametrize(("line", "said"), [
    ("sleep 1", None), ("sleep 0.5 2m .5s 1d", None), ("sleep abc", "invalid time interval 'abc'"),
    ("sleep 20 x", "invalid time interval 'x'"), ("sleep", "missing operand")])
def test_sleep_returns_at_once_but_names_a_time_that_is_none(shell, line, said):
    # "sleep abc" exited 0 as any sleep does here (no wall clock to wait for).
    out, err, code = run(shell, line)
    assert (out, err, code) == (("", "", 0) if said is None else ("", f"sleep: {said}\n", 1))


def test_grep_o_prints_each_match_on_a_line_of_its_own(shell):
    # -o was accepted and ignored: agents cutting one field out of dumpsys got whole lines.
    line = "echo 'mFocus=abc other mFocus=de\nnone\nmFocus=f' | grep -o 'mFocus=[a-z]*'"
    assert run(shell, line) == ("mFocus=abc\nmFocus=de\nmFocus=f\n", "", 0)
    assert run(shell, "echo 'ab\nb' | grep -o -c b")[0] == "2\n"  # a count is of lines
    assert run(shell, "echo 'ab\ncd' | grep -o -v a") == ("", "", 0)  # grep prints none
    assert run(shell, "echo abc | grep -o 'x*'") == ("", "", 0)  # empty matches are not shown


def test_ls_l_writes_the_columns_toybox_writes(shell):
    # Without date and time, the name was column 6 where scripts take column 8.
    run(shell, "echo hi > /sdcard/l.txt")
    (line,) = [x for x in run(shell, "ls -l /sdcard")[0].splitlines() if x.endswith("l.txt")]
    fields = line.split()
    assert fields[0] == "-rw-rw----" and fields[4] == "3" and fields[7] == "l.txt"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", f"{fields[5]} {fields[6]}")


def test_ls_r_lists_every_folder_below_and_several_paths_are_headed(shell):
    run(shell, "mkdir -p /sdcard/d/e; echo 1 > /sdcard/d/a; echo 2 > /sdcard/d/e/b")
    assert run(shell, "ls -R /sdcard/d") == ("/sdcard/d:\na\ne\n\n/sdcard/d/e:\nb\n", "", 0)
    assert run(shell, "ls /sdcard/d")[0] == "a\ne\n"
    # Several paths: in name order, files first, then each folder headed by its path as
    # written (they ran together); one left of them is not headed.
    assert run(shell, "ls /sdcard/d/e /sdcard/d/a /sdcard/d") == (
        "/sdcard/d/a\n\n/sdcard/d:\na\ne\n\n/sdcard/d/e:\nb\n", "", 0)
    assert run(shell, "ls /sdcard/zz /sdcard/d /sdcard/aa") == (  # missing: as given
        "a\ne\n", "ls: /sdcard/zz: No such file or directory\n"
        "ls: /sdcard/aa: No such file or directory\n", 1)
    assert run(shell, "ls /sdcard/d/ /sdcard/d/e")[0] == (
        "/sdcard/d/:\na\ne\n\n/sdcard/d/e:\nb\n")
    run(shell, "mkdir -p /sdcard/d/e/f /sdcard/d/g")
    assert run(shell, "ls -R /sdcard/d")[0] == ("/sdcard/d:\na\ne\ng\n\n/sdcard/d/e:\nb\nf\n\n"
                                             "/sdcard/d/e/f:\n\n/sdcard/d/g:\n")
    deep = "/sdcard/" + "/".join(["x"] * 1500)  # deeper than Python's recursion limit
    assert run(shell, f"mkdir -p {deep} && ls -R /sdcard/x")[0].count(":\n") == 1500


def test_rm_r_removes_the_folder_itself(shell):
    # It removed what the folder held and left the folder, which mkdir then refused.
    assert run(shell, "mkdir /sdcard/d && echo hi > /sdcard/d/f && rm -r /sdcard/d")[2] == 0
    assert run(shell, "ls -d /sdcard/d")[2] == 1
    assert run(shell, "mkdir /sdcard/d && ls -d /sdcard/d") == ("/sdcard/d\n", "", 0)


def test_a_write_under_a_file_fails_and_makes_no_folder(shell):
    # The folders up to the file were made before the file in the way was found.
    run(shell, "echo x > /sdcard/f")
    _out, err, code = run(shell, "echo y > /sdcard/f/a/b")
    assert code == 1 and "/sdcard/f: Not a directory" in err
    assert run(shell, "echo z > /sdcard/f/a/c")[2] == 1
    assert run(shell, "ls -d /sdcard/f/a")[2] == 1 and run(shell, "cat /sdcard/f")[0] == "x\n"


def test_redirections_files_and_rm(shell):
    line = "echo hi > /sdcard/a.txt; echo there >> /sdcard/a.txt; cat /sdcard/a.txt"
    assert run(shell, line)[0] == "hi\nthere\n"
    assert run(shell, "ls /sdcard")[0] == "a.txt\n"
    assert run(shell, "rm /sdcard/a.txt && ls /sdcard")[0] == ""
    _out, err, code = run(shell, "cat /sdcard/a.txt")
    assert (code, err) == (1, "cat: /sdcard/a.txt: No such file or directory\n")
    assert run(shell, "rm -f /sdcard/a.txt")[2] == 0
    assert run(shell, "nope 2>/dev/null; cat /nothing 2>&1 | grep -c such")[0] == "1\n"


def test_writes_outside_shared_storage_are_denied(shell):
    assert run(shell, "echo x > /system/x")[1] == "/system/bin/sh: /system/x: Permission denied\n"


def test_syntax_errors():
    # ";;" and a lone ";" ran as if the empty command were not there; sh refuses both.
    for line in ("echo 'open", 'echo "open', "echo $(open", "a &&", "| a", "echo >",
                 "echo a;;", ";", "echo a ; ; echo b", "echo a & ;"):
        with pytest.raises(ShellSyntaxError):
            parse(line)
    assert [len(parse(line)) for line in ("echo a;", "echo a &", "echo a\n\necho b", "")] == [
        1, 1, 2, 0]


def test_export_exec_and_logcat_run_what_adb_logcat_sends(shell):
    # `adb logcat` runs "export ANDROID_LOG_TAGS=''; exec logcat": all three were
    # "inaccessible or not found" (exit 127), so `adb logcat -c` failed.
    assert run(shell, "export ANDROID_LOG_TAGS='' ; exec logcat -d") == ("", "", 0)
    assert run(shell, "logcat -c && export A=1 B; echo $A.$B") == ("1.\n", "", 0)
    assert run(shell, "exec echo hi; echo not run: exec ran echo in the shell place") == (
        "hi\n", "", 0)
    assert run(shell, "exec; echo ran") == ("ran\n", "", 0)  # exec alone changes nothing
    # In $(…) and in a pipeline exec runs in a subshell: the line went no further.
    assert run(shell, "echo $(exec exit 3); echo after") == ("\nafter\n", "", 0)
    assert run(shell, "exec echo hi | cat; echo after") == ("hi\nafter\n", "", 0)
    assert "export B='a b'\n" in run(shell, "export B='a b'; export -p")[0]
    # An exec earlier in the line, or in a line a limit stopped, was taken for a
    # substitution's own and ended it early ("a" for "a b").
    assert run(shell, "exec echo hi | echo $(echo a; echo b)")[0] == "a b\n"
    assert run(shell, "export 1x=2")[1:] == (
        "/system/bin/sh: export: 1x: is not an identifier\n", 1)


def test_an_exec_stopped_by_a_limit_ends_only_its_own_line(pool):
    small = limited(pool, output_limit=100)
    assert small.run("exec cat /sdcard/k.bin").code != 0
    assert b"".join(data for _, data in small.run("echo a; echo b").chunks) == b"a\nb\n"


def test_syntax_error_in_shell_exits_2(shell):
    assert run(shell, "echo 'open")[2] == 2


def test_empty_unquoted_expansion_vanishes_but_quoted_stays(shell):
    assert run(shell, 'echo $NOPE "$NOPE" x')[0] == " x\n"


def limited(pool, **limits) -> Shell:
    fs = MemoryFileSystem()
    fs.write("/sdcard/k.bin", b"k" * 1000)
    return Shell({**basic_commands(pool, fs), **FileCommands(fs).table()}, fs, {},
                 limits=ShellLimits(**limits))


def test_output_limit_counts_pipes_substitutions_and_redirections(pool):
    shell = limited(pool, output_limit=2500)
    assert run(shell, "cat /sdcard/k.bin /sdcard/k.bin")[2] == 0
    for line in ("cat /sdcard/k.bin /sdcard/k.bin /sdcard/k.bin",  # refused before reading
                 "cat /sdcard/k.bin | cat | cat",
                 "echo $(cat /sdcard/k.bin) $(cat /sdcard/k.bin) $(cat /sdcard/k.bin)",
                 "cat /sdcard/k.bin > /sdcard/a; cat /sdcard/a > /sdcard/b; cat /sdcard/b"):
        out, err, code = run(shell, line)
        assert (out, code) == ("", 1), line
        assert err == "/system/bin/sh: output over the 2500 byte limit\n", line


def test_output_limit_stops_the_line_where_it_is_reached(pool):
    out, err, code = run(limited(pool, output_limit=2500),
                         "cat /sdcard/k.bin; cat /sdcard/k.bin; cat /sdcard/k.bin; echo never")
    assert (len(out), code) == (2000, 1)
    assert err.endswith("output over the 2500 byte limit\n")


def test_time_limit_kills_a_runaway_grep_and_ends_the_line(pool):
    shell = limited(pool, time_limit=0.5)
    result = shell.run("echo before; echo " + "a" * 30 + "! | grep -E '^(a+)+$'; echo after")
    assert result.stdout == b"before\n" and result.code == 137
    assert result.stderr == b"/system/bin/sh: killed: over the 0.5 s time limit\n"
    assert run(shell, "echo abc | grep b") == ("abc\n", "", 0)  # a fresh line, a fresh limit


def test_emit_receives_output_as_each_pipeline_finishes(pool):
    seen = []
    result = limited(pool).run("echo one; nope; echo two", emit=lambda fd, data: seen.append(
        (fd, data)))
    assert seen == [(1, b"one\n"), (2, b"/system/bin/sh: nope: inaccessible or not found\n"),
                    (1, b"two\n")]
    assert (result.chunks, result.code) == ([], 0)


def test_a_pattern_re_cannot_compile_is_grep_status_2(shell):
    out, err, code = run(shell, "echo a | grep -E 'a('")
    assert (out, code) == ("", 2)
    assert err.startswith("grep: bad regex 'a(': missing ), unterminated subpattern")


@pytest.mark.parametrize(("line", "out", "err", "file"), [
    # As in sh, redirections apply left to right.
    ("cat /nothing > /sdcard/f 2>&1", "", "", "cat: /nothing: No such file or directory\n"),
    ("cat /nothing 2>&1 > /sdcard/f", "cat: /nothing: No such file or directory\n", "", ""),
    ("cat /nothing > /dev/null 2>&1", "", "", None),
    ("cat /nothing 2>&1 >/dev/null", "cat: /nothing: No such file or directory\n", "", None),
    # Digits are an fd only against the redirection: this writes "2".
    ("echo 2 > /sdcard/f", "", "", "2\n"),
    ("echo 2>/sdcard/f", "\n", "", ""),  # fd 2 to the file: created, empty
    ("echo hi 2> /sdcard/f", "hi\n", "", ""),
])
def test_redirections_apply_in_order_as_in_sh(shell, line, out, err, file):
    assert run(shell, line)[:2] == (out, err)
    if file is not None:
        assert run(shell, "cat /sdcard/f")[0] == file


def test_exit_takes_ascii_numbers_only(shell):
    # As Android's sh: `exit abc` ended the line silently with the last status.
    assert run(shell, "true; exit ²; echo after") == (
        "", "/system/bin/sh: exit: bad number: ²\n", 1)
    assert run(shell, "exit 3")[2] == 3
    assert run(shell, "echo ² > /sdcard/g; cat /sdcard/g")[0] == "²\n"


@pytest.mark.parametrize(("line", "code"), [
    ("exit 256", 0), ("exit -1", 255), ("exit +7", 7), ("exit ' 5'", 5), ("exit 0009", 9),
    ("exit 2147483647", 255), ("exit -2147483648", 0), ("false; exit", 1)])
def test_exit_ends_the_line_with_its_number_modulo_256(shell, line, code):
    assert run(shell, f"{line}; echo after") == ("", "", code)


@pytest.mark.parametrize("number", ["abc", "2147483648", "1.5", "", "0x1", "3 "])
def test_exit_with_what_is_no_number_names_it_and_ends_the_line_with_1(shell, number):
    result = shell.run(f"true; exit '{number}'; echo after")
    assert (result.stdout, result.code, result.aborted, result.exited) == (b"", 1, True, False)
    assert result.stderr == f"/system/bin/sh: exit: bad number: {number}\n".encode()


def test_exit_with_two_arguments_is_an_error_that_ends_the_line(shell):
    result = shell.run("exit 1 2; echo $?")
    assert (result.stdout, result.code, result.aborted) == (b"", 1, True)
    assert result.stderr == b"/system/bin/sh: exit: too many arguments\n"
    assert shell.run("exit 3").exited and not shell.run("exit 3").aborted


def test_a_clients_input_is_waited_for_only_by_commands_that_read_it(pool):
    fs = MemoryFileSystem()
    shell = Shell({**basic_commands(pool, fs), **FileCommands(fs).table()}, fs, {},
                  limits=ShellLimits(time_limit=0.2))
    asked: list[float | None] = []

    def never_ends(timeout):
        asked.append(timeout)
        return None  # the client never closed its input

    assert shell.run("echo hi", stdin=never_ends).stdout == b"hi\n" and asked == []
    result = shell.run("cat", stdin=never_ends)
    assert result.code == 137 and b"time limit" in result.stderr
    assert len(asked) == 1 and 0 < asked[0] <= 0.2
    assert shell.run("cat | grep -c a", stdin=lambda timeout: b"a\nb\na\n").stdout == b"2\n"


def test_grep_reads_its_files_and_never_waits_for_input_then(pool):
    fs = MemoryFileSystem()
    shell = Shell({**basic_commands(pool, fs), **FileCommands(fs).table()}, fs, {})
    shell.run("echo hi > /sdcard/a; echo no > /sdcard/b; echo hi there > /sdcard/c")

    def never_ends(timeout):
        raise AssertionError("grep of files read the client's input")

    assert shell.run("grep hi /sdcard/a", stdin=never_ends).stdout == b"hi\n"
    both = shell.run("grep hi /sdcard/a /sdcard/b /sdcard/c")
    assert (both.stdout, both.code) == (b"/sdcard/a:hi\n/sdcard/c:hi there\n", 0)
    assert shell.run("grep -c hi /sdcard/a /sdcard/b").stdout == b"/sdcard/a:1\n/sdcard/b:0\n"
    missing = shell.run("grep hi /sdcard/a /sdcard/nope")
    assert missing.code == 2 and missing.stdout == b"/sdcard/a:hi\n"
    assert missing.stderr == b"grep: /sdcard/nope: No such file or directory\n"


def test_the_first_command_to_read_the_input_takes_it(shell):
    assert shell.run("cat; cat", stdin=b"once\n").stdout == b"once\n"
    assert shell.run("cat; cat", stdin=lambda timeout: b"once\n").stdout == b"once\n"


def test_output_files_are_opened_before_the_command_runs(shell):
    shell.run("echo hi > /sdcard/f; cat /sdcard/f > /sdcard/f")
    assert run(shell, "cat /sdcard/f")[0] == ""  # emptied before cat read it, as in sh
    _, err, code = run(shell, "rm /sdcard/f > /nodir/x")
    assert code == 1 and "/nodir/x" in err
    assert run(shell, "ls /sdcard/f")[2] == 0  # rm never ran


def test_only_one_digit_against_a_redirection_is_an_fd(shell):
    assert run(shell, "echo x 10>/sdcard/t; cat /sdcard/t") == ("x 10\n", "", 0)


@pytest.mark.parametrize(("line", "out"), [
    ('echo "a\\"b"', 'a"b\n'),            # \" inside double quotes is a quote
    ("echo a\\\nb", "ab\n"),              # backslash-newline joins the lines
    ('echo $(echo ")")', ")\n"),          # a quoted ) does not end $( ... )
    ("echo hi\r\n", "hi\n"),              # a CRLF line: \r is a blank, as in sh -c here
])
def test_quoting_and_blanks_follow_sh(shell, line, out):
    # Catches: '"' dropped from the escapable set in double quotes; an escaped newline
    # kept; quotes ignored inside $(...); '\r' no longer a word separator.
    assert run(shell, line)[0] == out


def test_input_redirection_reads_the_file(shell):
    # Catches: '<' without a digit got fd 1 instead of 0.
    assert run(shell, "echo hi > /sdcard/f; cat < /sdcard/f") == ("hi\n", "", 0)
    # The shell reads any "<" as input whatever its fd, so only the parse shows the fd.
    (pipeline,) = parse("cat < /sdcard/f")
    assert [(r.fd, r.op) for r in pipeline.commands[0].redirects] == [(0, "<")]


def test_a_digit_right_after_a_redirection_is_its_target_not_an_fd():
    # Catches: the "not a redirection's own target" rule dropped (sh: '>2>f' writes to
    # the file '2', then to f).
    (pipeline,) = parse("echo hi >2>f")
    assert [(r.fd, r.op) for r in pipeline.commands[0].redirects] == [(1, ">"), (1, ">")]
    assert pipeline.commands[0].redirects[0].target == (Part("lit", "2", False),)


def test_dollar_hash_is_a_variable():
    # Catches: '#' dropped from the one-character specials ($# became the text "$#").
    (pipeline,) = parse("echo $#")
    assert pipeline.commands[0].words[1] == (Part("var", "#", False),)


def test_output_that_exactly_fills_the_limit_is_allowed(pool):
    # Catches: "size > self.room" -> ">=" (an exactly fitting output was refused).
    sh = limited(pool, output_limit=4)
    assert (sh.run("echo abc").stdout, sh.run("echo abc").code) == (b"abc\n", 0)
    assert sh.run("echo abcd").code == 1


def test_a_redirection_into_a_missing_folder_fails_as_a_phones_shell_does(shell):
    # The folders were made and the command exited 0; a phone's shell says no such file.
    _out, err, code = run(shell, "echo hi > /sdcard/a/b/c")
    assert code == 1 and "/sdcard/a/b/c: No such file or directory" in err
    assert run(shell, "ls -d /sdcard/a")[2] == 1
    assert run(shell, "mkdir -p /sdcard/a/b && echo hi > /sdcard/a/b/c && cat /sdcard/a/b/c")[0] \
        == "hi\n"
