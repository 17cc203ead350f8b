// Package propspec names failsim check's built-in properties and reads their specs: a name and
// its argument, as a timeline's "expect property NAME ARG" and failsim check's --property
// NAME=ARG state them. It is what a timeline and failsim check say of a property, checked, and
// nothing of how one is judged: package property judges them, and package timeline parses and
// writes the expect lines, without either importing the other.
package propspec
