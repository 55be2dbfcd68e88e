@server @completion
Feature: Native completion
  POST /completion (and its alias /completions) generates exactly the tokens asked for, stops at stop
  strings, is deterministic for a fixed seed at temperature 0, reuses the KV cache of the previous prompt,
  takes prompts as text, token ids or a mix, returns token probabilities on request, and keeps to a grammar
  or a JSON schema.

  Background: One slot, a fixed seed
    Given a server listening on localhost:8080
    And   a model file default
    And   a model alias smollm2
    And   42 as server seed
    And   1 slots
    And   512 KV cache size
    Then  the server is starting
    Then  the server is healthy

  Scenario Outline: n_predict is honoured exactly
    Given a prompt <prompt>
    And   <n_predict> max tokens to predict
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Then  <n_predict> tokens are predicted

    Examples:
      | prompt                           | n_predict |
      | I believe the meaning of life is | 1         |
      | Write a joke about AI            | 8         |
      | Once upon a time                 | 48        |

  Scenario Outline: Both native routes honour n_predict: <path>
    Given a prompt Write a joke about AI
    And   6 max tokens to predict
    And   the request field ignore_eos is true
    When  the queued prompt is completed through <path>
    Then  the finish reason is limit
    And   the timings account for every prompt token
    And   6 tokens are predicted

    Examples:
      | path         |
      | /completion  |
      | /completions |

  Scenario: The same seed at temperature 0 gives the same text twice
    Given a prompt The capital of France is
    And   16 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true
    And   a completion request with no api error
    When  the completion request is sent again
    Then  the last 2 completions are identical

  Scenario Outline: A stop string ends the completion right before it (word <word>)
    Given a prompt Once upon a time
    And   16 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true
    And   a completion request with no api error
    When  the completion request is sent again stopping at word <word> of its text
    Then  the completion stopped at that word
    And   the finish reason is word

    Examples:
      | word |
      | 2    |
      | 5    |

  Scenario: A longer prompt reuses the cached tokens of the previous one
    Given a sliding-window model keeps its whole context
    And   the model uses no sliding-window attention
    And   a prompt The quick brown fox jumps over the lazy dog.
    And   4 max tokens to predict
    And   the request field cache_prompt is true
    And   a completion request with no api error
    Given a prompt The quick brown fox jumps over the lazy dog. Then it runs away into the forest.
    When  a completion request with no api error
    Then  the previous prompt came from the cache
    And   the timings account for every prompt token

  Scenario: cache_prompt false processes the whole prompt again
    Given a prompt The quick brown fox jumps over the lazy dog.
    And   4 max tokens to predict
    And   the request field cache_prompt is false
    And   a completion request with no api error
    When  the completion request is sent again
    Then  no prompt token came from the cache
    And   the timings account for every prompt token

  Scenario Outline: A prompt may be <form>
    Given 4 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true
    When  the prompt "Once upon a time there was" is completed as a string
    And   the prompt "Once upon a time there was" is completed as <form>
    Then  the last 2 completions are identical
    And   the timings account for every prompt token

    Examples:
      | form                   |
      | token ids              |
      | token ids then text    |
      | a prompt_string object |

  Scenario: A list of prompts gets one completion per prompt, in order
    Given a prompt Once upon a time
    And   a prompt The capital of France is
    And   a prompt Once upon a time
    And   3 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true
    When  the queued prompts are completed in one request
    Then  3 tokens are predicted
    And   3 tokens are predicted
    And   3 tokens are predicted

  Scenario: n_probs returns the most likely tokens for every predicted token
    Given a prompt I believe the meaning of life is
    And   5 max tokens to predict
    And   the request field temperature is 0
    And   the request field ignore_eos is true
    And   the request field n_probs is 3
    When  a completion request with no api error
    Then  each predicted token comes with its 3 most likely tokens

  Scenario: A grammar constrains the text, which ends when the grammar is complete
    Given a prompt The code is
    And   16 max tokens to predict
    And   the request field grammar is root ::= [0-9]{3} "-" [a-z]{2}
    When  a completion request with no api error
    Then  the completion text fully matches [0-9]{3}-[a-z]{2}
    And   the finish reason is eos

  Scenario Outline: A json_schema constrains the text to conforming JSON (temperature <temperature>)
    Given a prompt Describe a person as JSON:
    And   96 max tokens to predict
    And   the request field temperature is <temperature>
    And   the request field json_schema is {"type": "object", "properties": {"name": {"type": "string", "maxLength": 8}, "age": {"type": "integer", "minimum": 0, "maximum": 120}, "tags": {"type": "array", "items": {"enum": ["a", "b"]}, "maxItems": 3}}, "required": ["name", "age", "tags"], "additionalProperties": false}
    When  a completion request with no api error
    Then  the completion text is JSON that conforms to the request's json_schema
    And   the finish reason is eos

    Examples:
      | temperature |
      | 0           |
      | 1           |
