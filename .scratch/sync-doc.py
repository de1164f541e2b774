import sys,re
doc=sys.argv[1]; s=open(doc).read()
for f in sys.argv[2:]:
    src=open(f).read().rstrip()
    first=src.split('\n')[0]
    i=s.index(first); j=s.index('\n```',i)
    s=s[:i]+src+s[j:]
open(doc,'w').write(s)
