@server @slots
Feature: Slots
  The server processes as many requests at once as it has slots (--parallel). /slots lists them with
  is_processing; with ?fail_on_no_slot=1 it answers 503 while none is free.

  Scenario Outline: The slot count equals --parallel
    Given a server listening on localhost:8080
    And   a model file default
    And   <n_slots> slots
    And   <n_ctx> KV cache size
    Then  the server is starting
    And   the server is ready
    And   the server reports <n_slots> slots
    And   all slots are idle

    Examples:
      | n_slots | n_ctx |
      | 1       | 256   |
      | 2       | 512   |
      | 4       | 1024  |

  Scenario: An idle server has a free slot
    Given a server listening on localhost:8080
    And   a model file default
    And   2 slots
    Then  the server is starting
    When  a GET request to /slots?fail_on_no_slot=1
    Then  the response status is 200
    And   the response field 0.is_processing is false
    And   the response field 1.is_processing is false

  Scenario: Busy while every slot processes a request, idle again afterwards
    Given a server listening on localhost:8080
    And   a model file default
    And   42 as server seed
    And   2 slots
    And   1024 KV cache size
    Then  the server is starting
    Given a prompt:
      """
      Write a very long story about AI.
      """
    And   a prompt:
      """
      Write another very long music lyrics.
      """
    And   256 max tokens to predict
    And   the request field ignore_eos is true
    When  concurrent completion requests
    Then  the server is busy
    Then  the server is idle
    And   all slots are idle
    And   all prompts are predicted with 256 tokens
