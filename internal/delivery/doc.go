// Package delivery holds the tests of the ways contractlint is delivered to
// users: the pre-commit hook (.pre-commit-hooks.yaml) and the GitHub Action
// (action.yml and .github/workflows), run against real tools.
package delivery
