import assert from "node:assert/strict";
import { abridge, CUT_MARK } from "./abridge.ts";

Deno.test("abridge() keeps the first paragraph and marks the cut", () => {
  assert.equal(
    abridge("Clicks an element.\n\nUse take_snapshot first.\n\nMore.", 200),
    `Clicks an element. ${CUT_MARK}`,
  );
  // A paragraph break with spaces on the blank line, or CRLF line ends, is one too.
  assert.equal(abridge("One.\r\n  \r\nTwo.", 200), `One. ${CUT_MARK}`);
});

Deno.test("abridge() cuts a long paragraph at the last sentence end that fits", () => {
  const first = "A first sentence that says what the tool does, in some detail.";
  const second = "A second sentence, also worth reading when there is room for it.";
  const third = "A third sentence that runs past the limit and so is left for the whole text.";
  const text = `${first} ${second} ${third}`;
  assert.ok(`${first} ${second}`.length <= 140 && text.length > 140);
  assert.equal(abridge(text, 140), `${first} ${second} ${CUT_MARK}`);
  // Abbreviations do not end a sentence.
  assert.equal(
    abridge("Pass a key, e.g. Enter or Tab. The page must have focus for this to work.", 40),
    `Pass a key, e.g. Enter or Tab. ${CUT_MARK}`,
  );
});

Deno.test("abridge() keeps a first sentence a little over the limit, else cuts at a word", () => {
  const sentence = "One long sentence that goes on past the limit but not twice as far.";
  assert.equal(abridge(`${sentence} And then more.`, 50), `${sentence} ${CUT_MARK}`);
  // No sentence end within twice the limit: as many words as fit.
  assert.equal(
    abridge("words without an end ".repeat(10), 30),
    `words without an end words${CUT_MARK}`,
  );
  // An unclosed last sentence ends at the end of the text.
  const open = "The uid of the file input element or an element that opens a file chooser";
  assert.equal(abridge(open, 60), open);
});

Deno.test("abridge() returns a text that needs no cut as it was", () => {
  const text = "Line one of one paragraph,\nwrapped by hand.";
  assert.equal(abridge(text, 200), text);
  assert.equal(abridge(`  ${text}\n`, 200), text);
  // Exactly at the limit, and one long sentence within twice the limit, stay whole.
  assert.equal(abridge("x".repeat(200), 200), "x".repeat(200));
  const long = `${"word ".repeat(50).trim()}.`;
  assert.equal(abridge(long, 200), long);
});
