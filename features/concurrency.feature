@server @concurrency
Feature: Concurrent requests
  Each slot processes one request at a time: as many requests as slots run together (every slot busy),
  further ones wait in the queue, and every one of them gets the tokens it asked for.

  Background: Two slots
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   42 as server seed
    And   2 slots
    And   1024 KV cache size
    Then  the server is starting
    Then  the server is healthy
    Given a system prompt You are a writer.
    And   the request field ignore_eos is true

  Scenario Outline: As many <kind> requests as slots run at once (streaming <streaming>)
    Given a prompt Write a very long story about AI.
    And   a prompt Write another very long music lyrics.
    And   48 max tokens to predict
    And   streaming is <streaming>
    When  <requests>
    Then  the server is busy
    Then  the server is idle
    And   all slots are idle
    And   all prompts are predicted with 48 tokens

    Examples:
      | kind          | streaming | requests                                  |
      | native        | disabled  | concurrent completion requests            |
      | native        | enabled   | concurrent completion requests            |
      | OAI chat      | disabled  | concurrent OAI completions requests       |
      | OAI chat      | enabled   | concurrent OAI completions requests       |
      | OAI chat (v0) | disabled  | concurrent OAI completions requests no v1 |

  Scenario: More requests than slots wait in the queue and all complete
    Given a prompt Write a very long book.
    And   a prompt Write another a poem.
    And   a prompt What is an LLM?
    And   a prompt The sky is blue and I love it.
    And   32 max tokens to predict
    When  concurrent completion requests
    Then  the server is busy
    Then  the server is idle
    And   all prompts are predicted with 32 tokens

  Scenario: More OAI streams than slots wait in the queue and all complete
    Given a prompt Write a very long book.
    And   a prompt Write another a poem.
    And   a prompt What is an LLM?
    And   48 max tokens to predict
    And   streaming is enabled
    When  concurrent OAI completions requests
    Then  the server is busy
    Then  the server is idle
    And   all prompts are predicted with 48 tokens
