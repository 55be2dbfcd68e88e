@server @metrics @requires.metrics
Feature: Prometheus metrics
  With --metrics, GET /metrics answers Prometheus text (text/plain; version=0.0.4). Its counters add up what
  the server did: prompt tokens it processed (cached ones apart), tokens it generated; its gauges say how
  many requests are running and how many wait for a slot. Without --metrics it answers 501.

  Background: One slot, metrics exposed
    Given a server listening on localhost:8080
    And   a model file default
    And   42 as server seed
    And   1 slots
    And   512 KV cache size
    And   prometheus compatible metrics exposed
    Then  the server is starting

  Scenario: /metrics is Prometheus text with every metric this build exports
    Then prometheus metrics are exposed

  Scenario Outline: A completion of <n_predict> tokens moves the token counters by what it processed
    Given the metrics are noted
    And   a prompt <prompt>
    And   <n_predict> max tokens to predict
    And   the request field ignore_eos is true
    And   the request field cache_prompt is false
    And   a completion request with no api error
    Then  the metric llamacpp:tokens_predicted_total grew by <n_predict>
    And   the metric llamacpp:tokens_predicted_total grew by the last completion's timings.predicted_n
    And   the metric llamacpp:prompt_tokens_total grew by the last completion's timings.prompt_n
    And   the metric llamacpp:prompt_tokens_total grew by the last completion's tokens_evaluated

    Examples:
      | prompt                           | n_predict |
      | I believe the meaning of life is | 1         |
      | Write a joke about AI            | 8         |

  Scenario: A repeated prompt is counted as cached, not as processed again
    Given a prompt The capital of France is a city called
    And   4 max tokens to predict
    And   the request field ignore_eos is true
    And   a completion request with no api error
    Given the metrics are noted
    When  the completion request is sent again
    Then  the metric llamacpp:prompt_tokens_total grew by the last completion's timings.prompt_n
    And   the metric llamacpp:prompt_tokens_cached_total grew by the last completion's timings.cache_n
    And   the metric llamacpp:tokens_predicted_total grew by 4

  Scenario: The request gauges count the running and the waiting request
    Given a prompt Write a very long story about AI.
    And   a prompt Write another very long story about the sea.
    And   128 max tokens to predict
    And   the request field ignore_eos is true
    When  concurrent completion requests
    Then  the server is busy
    And   the metric llamacpp:requests_processing becomes 1
    And   the metric llamacpp:requests_deferred becomes 1
    Then  all prompts are predicted with 128 tokens
    And   the metric llamacpp:requests_processing becomes 0
    And   the metric llamacpp:requests_deferred becomes 0

  Scenario: The original suite's completion followed by the metrics check
    Given a prompt I believe the meaning of life is
    And   8 max tokens to predict
    And   a completion request with no api error
    Then  prometheus metrics are exposed
