<?php
// A small router, written for the formatter tests (quotes, heredoc, arrays, closures, classes).
namespace App\Routing;

use InvalidArgumentException;

final class Router
{
    private array $routes = array();
    const METHODS = ['GET', "POST", 'PUT', "DELETE"];

    public function add(string $method, string $path, callable $handler): self {
        if (!in_array($method, self::METHODS, true)) { throw new InvalidArgumentException("Unknown method: " . $method . ', expected one of ' . implode(", ", self::METHODS)); }
        $this->routes[$method][$path] = $handler; return $this;
    }

    public function dispatch(string $method, string $path) {
        $handler = $this->routes[$method][$path] ?? null;
        if ($handler === null) { return $this->notFound($path); }
        return ($handler)($path, count($this->routes[$method]) * 2 + 1);
    }

    private function notFound(string $path): string {
        $message = <<<EOT
No route for $path.
  Try one of: {$this->list()}
EOT;
        return $message . 'done';
    }

    private function list(): string { return implode(', ', array_map(fn($m) => strtolower($m), array_keys($this->routes))); }
}

function make_router(): Router { $r = new Router; return $r->add('GET', '/', function ($p, $n) { return "home $p" . ($n > 1 ? 'x' : "y"); }); }
