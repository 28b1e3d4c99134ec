### glob_star
### bash_diff: Bashkit VFS has files, real bash CI filesystem does not - glob expands differently
# Glob with asterisk
echo a > /test1.txt; echo b > /test2.txt; echo /test*.txt
### expect
/test1.txt /test2.txt
### end

### glob_question
### bash_diff: Bashkit VFS has files, real bash CI filesystem does not - glob expands differently
# Glob with question mark
echo a > /a1.txt; echo b > /a2.txt; echo c > /a10.txt; echo /a?.txt
### expect
/a1.txt /a2.txt
### end

### glob_no_match
# Glob with no matches returns pattern
echo /nonexistent/*.xyz
### expect
/nonexistent/*.xyz
### end

### glob_in_quotes
# Glob in quotes not expanded
echo "/*.txt"
### expect
/*.txt
### end

### glob_bracket
### bash_diff: Bashkit VFS has files, real bash CI filesystem does not - glob expands differently
echo a > /x1.txt; echo b > /x2.txt; echo /x[12].txt
### expect
/x1.txt /x2.txt
### end

### glob_recursive
### bash_diff: Bashkit VFS has files, real bash CI filesystem does not
# Recursive glob with ** (requires globstar)
shopt -s globstar
mkdir -p /recur/sub1/deep
mkdir -p /recur/sub2
echo a > /recur/f1.txt
echo b > /recur/sub1/f2.txt
echo c > /recur/sub1/deep/f3.txt
echo d > /recur/sub2/f4.txt
echo /recur/**/*.txt
### expect
/recur/f1.txt /recur/sub1/deep/f3.txt /recur/sub1/f2.txt /recur/sub2/f4.txt
### end

### glob_brace
echo file.{txt,log}
### expect
file.txt file.log
### end

### glob_in_for_loop
### bash_diff: Bashkit VFS has files, real bash CI filesystem does not - glob expands differently
# Glob expansion in for-loop word list
echo a > /g1.txt; echo b > /g2.txt
for f in /g*.txt; do echo $f; done
### expect
/g1.txt
/g2.txt
### end

### glob_in_for_no_match
# Glob with no matches in for-loop keeps literal pattern
for f in /nonexistent_dir/*.xyz; do echo $f; done
### expect
/nonexistent_dir/*.xyz
### end

### glob_intermediate_component
### bash_diff: Bashkit VFS has files, real bash CI filesystem does not
# Non-final path components expand too (read-only skill mounts rely on this)
mkdir -p /skills/pdf /skills/xlsx
echo a > /skills/pdf/SKILL.md
echo b > /skills/xlsx/SKILL.md
echo /skills/*/SKILL.md
### expect
/skills/pdf/SKILL.md /skills/xlsx/SKILL.md
### end

### glob_intermediate_component_dirs_only
### bash_diff: Bashkit VFS has files, real bash CI filesystem does not
# A plain file sharing the prefix is not descended into
mkdir -p /sk2/pdf
echo a > /sk2/pdf/SKILL.md
echo notadir > /sk2/notes
echo /sk2/*/SKILL.md
### expect
/sk2/pdf/SKILL.md
### end

### glob_intermediate_component_no_match
# Unmatched intermediate glob stays literal without nullglob
echo /nope/*/SKILL.md
### expect
/nope/*/SKILL.md
### end

### glob_trailing_slash_directories_only
# */ matches directories (and symlinks to them) and keeps the slash
mkdir -p gd/d1 gd/d2/s; touch gd/f1; ln -s d1 gd/l; cd gd; echo */; echo d*/ f1/; echo */*/
### expect
d1/ d2/ l/
d1/ d2/ f1/
d2/s/
### end

### glob_bracket_word_ends_at_metachar
echo [bin; echo [!bin
echo a[b
### expect
[bin
[!bin
a[b
### end
