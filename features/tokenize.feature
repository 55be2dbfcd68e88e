@server @tokenize
Feature: Tokenization and chat templates
  /tokenize turns text into the model's token ids (with their pieces on request), /detokenize turns them
  back into the text, and /apply-template renders chat messages into the prompt a chat completion is
  given.

  Background: One server
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   256 KV cache size
    Then  the server is starting

  Scenario Outline: Tokenizing and detokenizing gives the text back: <text>
    When tokenizing:
      """
      <text>
      """
    Then tokens can be detokenize

    Examples:
      | text                                        |
      | What is the capital of France ?             |
      | Numbers 12345, symbols #@! and   spaces     |
      | Unicode 媽 and emoji 🤗                     |

  # Tokenizers differ in the special tokens they add (BERT-style ones add two): model-specific.
  Scenario Outline: Special tokens add at most a BOS token: <text>
    When tokenizing:
      """
      <text>
      """
    Then tokenizing with add_special adds at most the BOS token

    @model.smollm2-135m
    Examples: SmolLM2 adds no more than a BOS
      | text                            |
      | What is the capital of France ? |

  Scenario: Tokens with pieces spell the text and carry the plain ids
    When tokenizing with pieces:
      """
      This is a test string with unicode 媽 and emoji 🤗
      """
    Then the pieces spell the text
    And  the pieces carry the same ids as plain tokenizing

  Scenario: /detokenize of no tokens is an empty text
    When a POST request to /detokenize with JSON {"tokens": []}
    Then the response status is 200
    And  the response JSON is {"content": ""}

  Scenario: /apply-template renders the messages into the chat prompt
    Given a system prompt You are a terse assistant.
    And   a user prompt Name a colour.
    And   4 max tokens to predict
    When  the chat template is applied to the prompts
    Then  the rendered prompt holds every message in order
    When  a chat completion is requested from /v1/chat/completions with raw HTTP
    Then  the usage counts the rendered prompt's tokens

  Scenario Outline: The chat template renders exactly the model's chat format
    Given a system prompt <system>
    And   a user prompt <user>
    When  the chat template is applied to the prompts
    Then  the response field prompt is <rendered>

    @model.smollm2-135m
    Examples: SmolLM2's ChatML template
      | system         | user   | rendered                                                                                                  |
      | You are terse. | Say hi | "<\|im_start\|>system\nYou are terse.<\|im_end\|>\n<\|im_start\|>user\nSay hi<\|im_end\|>\n<\|im_start\|>assistant\n" |
