"""Normal-form hashing cost against tree-sitter parse cost, per language.

Generates a deterministic ~2,000-line source file per language, then times parsing and hashing
(`hash_tree`, parse excluded) alternately, RUNS times each (default 9, at least 7), and prints the
medians. Times are the process's CPU time, so that a loaded machine's waits for a core count less
(both are single-threaded). Target (issue): hash <= 2x parse.
Usage: .venv/bin/python benchmarks/ast_hash.py [RUNS]
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable

from gitai.syntax import normal_form
from gitai.syntax.normal_form import hash_tree, parse

TARGET_LINES = 2000
OPS = ["+", "-", "*", "%"]
CMP = ["<", ">", "<=", ">=", "==", "!="]

PYTHON_UNIT = '''

class Service{n}(BaseService):
    """Coordinates work items for shard {n}."""

    retries = {k}
    timeout: float = {k}.5

    def __init__(self, client, *, name="svc-{n}", limit={k}):
        super().__init__(client)
        self.name = name
        self.limit = limit
        self._cache: dict[str, list[int]] = {{}}

    @property
    def label(self) -> str:
        return f"{{self.name}}:{{self.limit:>4}}"

    async def fetch(self, key: str, default=None):
        # look the key up in the cache first
        if key in self._cache and len(self._cache[key]) {cmp} {k}:
            return self._cache[key][-1]
        try:
            value = await self.client.get(key, timeout=self.timeout)
        except (TimeoutError, KeyError) as exc:
            log.warning("fetch %s failed: %r", key, exc)
            return default
        self._cache.setdefault(key, []).append(value {op} {k})
        return value

    def summarize(self, items):
        totals = {{item.kind: item.size * {k} for item in items if item.size {cmp} 0}}
        ordered = sorted(totals.items(), key=lambda pair: (-pair[1], pair[0]))
        for index, (kind, size) in enumerate(ordered[:{k}]):
            yield index, kind, size {op} self.limit
        return None

    @staticmethod
    def parse_line(line: str) -> tuple[str, int]:
        head, _, tail = line.partition("=")
        return head.strip(), int(tail or "{k}", base=10)


def helper_{n}(values, threshold={k}):
    result = []
    for value in values:
        if value {cmp} threshold and not value % 2:
            result.append(value {op} {k})
        elif value is None:
            continue
        else:
            result.extend([value, -value])
    return {{"count": len(result), "items": result[1:], "tag": 'helper-{n}'}}
'''

JS_UNIT = '''
// Widget {n}: renders and caches a list of records.
export class Widget{n} extends Base {{
  static defaults = {{ size: {k}, label: "w{n}" }};
  #cache = new Map();

  constructor(root, options = {{}}) {{
    super(root);
    this.options = {{ ...Widget{n}.defaults, ...options }};
    this.count = 0;
  }}

  async load(id) {{
    if (this.#cache.has(id) && this.count {cmp} {k}) {{
      return this.#cache.get(id);
    }}
    const response = await fetch(`/api/items/${{id}}?page=${{this.count {op} {k}}}`);
    const data = await response.json();
    this.#cache.set(id, data.items.filter((item) => item.size {cmp} {k}));
    return data;
  }}

  render(items) {{
    const rows = items.map(({{ name, size }}, index) => {{
      const cls = index % 2 === 0 ? 'even' : "odd";
      return `<tr class="${{cls}}"><td>${{name}}</td><td>${{size {op} {k}}}</td></tr>`;
    }});
    this.count += rows.length;
    return rows.join("\\n");
  }}

  *entries() {{
    for (const [key, value] of this.#cache) {{
      yield [key, value.length {op} {k}];
    }}
  }}
}}

export function format{n}(value, digits = {k}) {{
  if (value == null) return "";
  switch (typeof value) {{
    case "number":
      return value.toFixed(digits);
    case "string":
      return value.trim().slice(0, {k});
    default:
      return JSON.stringify(value);
  }}
}}

const handler{n} = async (event) => {{
  event.preventDefault();
  const {{ target }} = event;
  let tries = {k};
  while (tries-- > 0 && !target.dataset.ready) {{
    await new Promise((resolve) => setTimeout(resolve, {k}0));
  }}
  return target?.value ?? null;
}};
'''

TS_UNIT = '''
export interface Record{n}<T = unknown> {{
  id: string;
  size: number;
  payload?: T;
  tags: readonly string[];
}}

export type Filter{n} = (record: Record{n}) => boolean;

export enum Level{n} {{
  Low = {k},
  Mid,
  High = "high-{n}",
}}

export class Store{n}<T> implements Iterable<Record{n}<T>> {{
  private readonly items = new Map<string, Record{n}<T>>();
  protected limit: number = {k};

  constructor(private readonly name: string, filters: Filter{n}[] = []) {{
    this.filters = filters;
  }}

  public filters: Filter{n}[];

  add(record: Record{n}<T>): void {{
    if (this.items.size {cmp} this.limit) {{
      throw new Error(`store ${{this.name}} is full ({k})`);
    }}
    this.items.set(record.id, {{ ...record, size: record.size {op} {k} }});
  }}

  find(id: string): Record{n}<T> | undefined {{
    const record = this.items.get(id);
    return record && this.filters.every((f) => f(record)) ? record : undefined;
  }}

  async flush(sink: (batch: Record{n}<T>[]) => Promise<number>): Promise<number> {{
    const batch = [...this.items.values()].sort((a, b) => a.size - b.size);
    const written = await sink(batch.slice(0, {k}));
    this.items.clear();
    return written {op} {k};
  }}

  *[Symbol.iterator](): Iterator<Record{n}<T>> {{
    yield* this.items.values();
  }}
}}

export function score{n}(records: Record{n}[], weight = {k}): number {{
  let total = 0;
  for (const {{ size, tags }} of records) {{
    total += tags.includes("hot") ? size * weight : size {op} {k};
  }}
  return total as number;
}}
'''

GO_UNIT = '''
// Cache{n} keeps recent entries for shard {n}.
type Cache{n} struct {{
	mu      sync.Mutex
	entries map[string][]int
	limit   int
	name    string
}}

// NewCache{n} returns an empty cache.
func NewCache{n}(name string, limit int) *Cache{n} {{
	return &Cache{n}{{entries: make(map[string][]int), limit: limit, name: name}}
}}

// Put stores a value and reports whether the key was new.
func (c *Cache{n}) Put(key string, value int) (bool, error) {{
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) {cmp} c.limit {{
		return false, fmt.Errorf("cache %q full: %d", c.name, {k})
	}}
	list, ok := c.entries[key]
	c.entries[key] = append(list, value{op}{k})
	return !ok, nil
}}

// Sum adds up every stored value above a threshold.
func (c *Cache{n}) Sum(threshold int) (total int) {{
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, values := range c.entries {{
		if strings.HasPrefix(key, "skip-") {{
			continue
		}}
		for i := 0; i < len(values); i++ {{
			if values[i] {cmp} threshold {{
				total += values[i] {op} {k}
			}}
		}}
	}}
	return total
}}

func worker{n}(ctx context.Context, jobs <-chan string, out chan<- int) error {{
	for {{
		select {{
		case <-ctx.Done():
			return ctx.Err()
		case job, ok := <-jobs:
			if !ok {{
				return nil
			}}
			switch n := len(job); {{
			case n > {k}:
				out <- n {op} {k}
			default:
				out <- -1
			}}
		}}
	}}
}}
'''

RUST_UNIT = '''
/// Registry {n}: named counters with a cap.
#[derive(Debug, Clone, Default)]
pub struct Registry{n} {{
    counters: HashMap<String, u64>,
    cap: u64,
    label: &'static str,
}}

impl Registry{n} {{
    pub fn new(cap: u64) -> Self {{
        Self {{ counters: HashMap::new(), cap, label: "registry-{n}" }}
    }}

    pub fn bump(&mut self, key: &str, by: u64) -> Result<u64, String> {{
        let entry = self.counters.entry(key.to_string()).or_insert(0);
        if *entry {cmp} self.cap {{
            return Err(format!("{{}} over cap {{}}", key, {k}));
        }}
        *entry = entry.saturating_add(by {op} {k});
        Ok(*entry)
    }}

    pub fn total(&self) -> u64 {{
        self.counters
            .values()
            .filter(|v| **v {cmp} {k})
            .map(|v| v {op} {k})
            .sum()
    }}

    fn describe(&self, verbose: bool) -> String {{
        match (verbose, self.counters.len()) {{
            (true, 0) => String::from("empty"),
            (true, n) if n > {k} => format!("{{}} counters", n),
            (_, n) => {{
                let names: Vec<&String> = self.counters.keys().take({k}).collect();
                format!("{{}}: {{:?}} ({{}})", self.label, names, n)
            }}
        }}
    }}
}}

impl fmt::Display for Registry{n} {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        write!(f, "{{}}[{{}}]", self.label, self.total())
    }}
}}

pub fn merge{n}<'a>(left: &'a [u64], right: &'a [u64]) -> Vec<u64> {{
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0usize, 0usize);
    while i < left.len() && j < right.len() {{
        if left[i] {cmp} right[j] {{
            out.push(left[i] {op} {k});
            i += 1;
        }} else {{
            out.push(right[j]);
            j += 1;
        }}
    }}
    out.extend_from_slice(&left[i..]);
    out.extend_from_slice(&right[j..]);
    out
}}
'''

JAVA_UNIT = '''
    /** Ledger {n}: keeps balances per account. */
    public static final class Ledger{n} implements Comparable<Ledger{n}> {{
        private final Map<String, Long> balances = new HashMap<>();
        private final String name;
        private int operations = {k};

        public Ledger{n}(String name) {{
            this.name = Objects.requireNonNull(name, "name");
        }}

        @Override
        public int compareTo(Ledger{n} other) {{
            return Integer.compare(operations, other.operations {op} {k});
        }}

        public synchronized long deposit(String account, long amount) throws IllegalStateException {{
            if (amount {cmp} 0L) {{
                throw new IllegalArgumentException("negative amount: " + amount);
            }}
            operations++;
            return balances.merge(account, amount {op} {k}, Long::sum);
        }}

        public List<String> richest(int limit) {{
            return balances.entrySet().stream()
                .filter(e -> e.getValue() {cmp} {k}L)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .limit(limit)
                .map(e -> String.format("%s=%d", e.getKey(), e.getValue()))
                .collect(Collectors.toList());
        }}

        long total() {{
            long sum = 0;
            for (Map.Entry<String, Long> entry : balances.entrySet()) {{
                switch (entry.getKey().charAt(0)) {{
                    case 'x':
                        continue;
                    default:
                        sum += entry.getValue() {op} {k};
                }}
            }}
            return sum;
        }}
    }}

    static int check{n}(int[] values, int threshold) {{
        int hits = 0;
        for (int i = 0; i < values.length; i++) {{
            hits += values[i] {cmp} threshold ? 1 : 0;
        }}
        try {{
            return Math.addExact(hits, {k});
        }} catch (ArithmeticException ex) {{
            return -1;
        }}
    }}
'''

C_UNIT = '''
#define SLOT{n}_LIMIT ({k} {op} 4)
#define SLOT{n}_PICK(a, b) ((a) {cmp} (b) ? (a) : (b))

/* Slot {n}: a bounded queue of jobs. */
struct slot{n} {{
    unsigned char *data;
    size_t head, tail, size;
    int flags;
}};

typedef struct {{ int id; const char *name; }} job{n}_t;

static size_t slot{n}_used(const struct slot{n} *s) {{
    return s->tail >= s->head ? s->tail - s->head : s->size - s->head + s->tail;
}}

int slot{n}_push(struct slot{n} *s, const unsigned char *src, size_t n) {{
    size_t room = s->size - slot{n}_used(s) - 1, done = 0;
    if (n {cmp} room) {{
        fprintf(stderr, "slot{n}: dropping %zu bytes of " "%zu\\n", n - room, n);
        n = SLOT{n}_PICK(n, room);
    }}
    while (done < n) {{
        s->data[s->tail] = src[done++];
        s->tail = (s->tail + 1) % s->size;
    }}
    switch (s->flags & 0x{k}) {{
    case 0:
        break;
    default:
        s->flags = s->flags {op} {k};
    }}
    return (int)done;
}}
'''

CPP_UNIT = '''
namespace shard{n} {{

template <typename K, typename V>
class Cache{n} : public Base {{
 public:
  explicit Cache{n}(std::size_t capacity) : capacity_(capacity {op} {k}) {{}}
  bool Get(const K& key, V* value) const {{
    auto it = index_.find(key);
    if (it == index_.end()) return false;
    *value = it->second->second;
    return true;
  }}
  void Put(const K& key, V value) {{
    order_.emplace_front(key, std::move(value));
    index_[key] = order_.begin();
    if (order_.size() {cmp} capacity_) {{
      index_.erase(order_.back().first);
      order_.pop_back();
    }}
  }}
  std::size_t Size() const {{ return order_.size(); }}

 private:
  std::size_t capacity_;
  std::list<std::pair<K, V>> order_;
  std::unordered_map<K, typename std::list<std::pair<K, V>>::iterator> index_;
}};

std::string Describe{n}(const Cache{n}<int, std::string>& c) {{
  return "cache {n} holds " + std::to_string(c.Size() {op} {k}) + " entries";
}}

int Count{n}(const std::vector<int>& values) {{
  return std::count_if(values.begin(), values.end(), [](int x) {{ return x % {k} {cmp} 1; }});
}}

}}  // namespace shard{n}
'''

PHP_UNIT = '''
final class Router{n} extends BaseRouter implements RouterInterface
{{
    private array $routes = [];
    const LIMIT = {k};

    public function add(string $method, string $path, callable $handler): self
    {{
        if (!in_array($method, ['GET', "POST"], true)) {{
            throw new InvalidArgumentException("Unknown method $method for router {n}");
        }}
        $this->routes[$method][$path] = $handler;
        return $this;
    }}

    public function dispatch(string $method, string $path): mixed
    {{
        $handler = $this->routes[$method][$path] ?? null;
        if ($handler === null || count($this->routes) {cmp} self::LIMIT) {{
            return $this->notFound($path);
        }}
        return ($handler)($path, count($this->routes[$method]) {op} {k});
    }}

    private function notFound(string $path): string
    {{
        return sprintf('No route for %s (router %d)', $path, {n}) . implode(', ', array_map(fn($m) => strtolower($m), array_keys($this->routes)));
    }}
}}

function make_router{n}(): Router{n}
{{
    $r = new Router{n}();
    return $r->add('GET', '/', function ($p, $n) {{ return "home $p" . ($n {cmp} 1 ? 'x' : 'y'); }});
}}
'''  # noqa: E501 (the generated PHP keeps its long line: the pinned digests hash this text)


def _generate(header: str, unit: str, footer: str = "") -> Callable[[], str]:
    def generate() -> str:
        rng = random.Random(2024)
        parts = [header]
        n = 0
        while sum(part.count("\n") for part in parts) < TARGET_LINES - footer.count("\n"):
            parts.append(unit.format(n=n, k=rng.randint(2, 99), op=rng.choice(OPS), cmp=rng.choice(CMP)))
            n += 1
        parts.append(footer)
        return "".join(parts)

    return generate


GENERATORS: dict[str, Callable[[], str]] = {
    "python": _generate('"""Generated services."""\nimport logging\n\nlog = logging.getLogger("bench")\n', PYTHON_UNIT),
    "javascript": _generate('import { Base } from "./base.js";\n', JS_UNIT),
    "typescript": _generate('import { EventEmitter } from "events";\n', TS_UNIT),
    "go": _generate('package cache\n\nimport (\n\t"context"\n\t"fmt"\n\t"strings"\n\t"sync"\n)\n', GO_UNIT),
    "rust": _generate("use std::collections::HashMap;\nuse std::fmt;\n", RUST_UNIT),
    "java": _generate("package bench;\n\nimport java.util.*;\nimport java.util.stream.Collectors;\n\n"
                      "public class Ledgers {\n", JAVA_UNIT, "}\n"),
    "c": _generate("#include <stdio.h>\n#include <stdlib.h>\n#include <string.h>\n", C_UNIT),
    "cpp": _generate("#include <list>\n#include <string>\n#include <unordered_map>\n#include <vector>\n", CPP_UNIT),
    "php": _generate("<?php\nnamespace App\\Routing;\n\nuse InvalidArgumentException;\n", PHP_UNIT),
}


def measure(language: str, source: bytes, runs: int) -> tuple[float, float]:
    """Median parse and hash CPU milliseconds, timed alternately."""
    parse_times, hash_times = [], []
    hash_tree(language, source, parse(language, source))  # warm up: grammar load, tables
    for _ in range(runs):
        normal_form._DIGESTS.clear()  # time a first hash: the in-process memos would answer a repeat
        normal_form._MEMOS.clear()
        start = time.process_time()
        tree = parse(language, source)
        middle = time.process_time()
        parsed = hash_tree(language, source, tree)
        end = time.process_time()
        if parsed.parse_error:
            raise SystemExit(f"generated {language} source does not parse cleanly")
        parse_times.append((middle - start) * 1000)
        hash_times.append((end - middle) * 1000)
    return statistics.median(parse_times), statistics.median(hash_times)


def main() -> int:
    runs = max(7, int(sys.argv[1])) if len(sys.argv) > 1 else 9
    print(f"{'language':<12}{'lines':>7}{'parse ms':>11}{'hash ms':>10}{'ratio':>8}")
    for language, generate in GENERATORS.items():
        source = generate().encode()
        parse_ms, hash_ms = measure(language, source, runs)
        lines = source.count(b"\n")
        print(f"{language:<12}{lines:>7}{parse_ms:>11.2f}{hash_ms:>10.2f}{hash_ms / parse_ms:>8.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
