#!/bin/sh
# samples/harness.sh: the 2003 report's harness, verbatim below this comment.
# It times fork and exec of the shell given as $1, $2 + 1 times, each
# running the null script ./foo: run it from samples/, as
#   ldprof -f ./harness.sh ./sh.dynamic 100
sh=$1
cnt=$2
i=0

while [ $i -le $cnt ]; do
        $sh ./foo
        i=`expr $i + 1`
done
#eof
