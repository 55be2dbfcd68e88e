@cache @cache_disk @requires.cache_disk @fresh_server
Feature: Persistent disk prompt cache
  With --cache-disk DIR, a prompt that leaves its slot for the RAM prompt cache is also kept in DIR, one
  *.kvc file per prompt, so that a later server process finds it (a "disk hit"): only the prompt's last
  token is processed again. With --cache-disk-write-through the file is written as soon as the prompt
  enters the RAM cache, otherwise when the server shuts down gracefully. --cache-disk-limit MiB bounds
  the directory, oldest files first. Damaged files are detected and deleted, files of another
  configuration are left alone, and a store interrupted by kill -9 never leaves a partial *.kvc file.
  Stores and hits are marked in the --verbose log: __TEST_TAG_CACHE_DISK_STORE__, __TEST_TAG_CACHE_DISK_HIT__.

  Background: One slot, a disk prompt cache, two prompts without a common prefix
    Given a server listening on localhost:8080
    And   a model file default
    And   1 slots
    And   512 KV cache size
    And   a disk prompt cache directory
    And   prompt A is "Once upon a time in a land far away, there lived a brave knight who traveled across mountains and rivers to find the legendary golden sword hidden deep within the enchanted forest of whispers."
    And   prompt B is "The quick brown fox jumps over the lazy dog."

  Scenario: With write-through, an evicted prompt is on disk at once and a new server process hits it
    Given the disk cache writes through
    Then  the server is starting
    When  prompt A is evaluated
    Then  prompt A was processed in full
    And   the disk cache holds no files
    When  prompt B is evaluated
    Then  the server log shows __TEST_TAG_CACHE_DISK_STORE__
    And   the disk cache holds 1 file
    When  the server is restarted
    And   prompt A is evaluated
    Then  the server log shows __TEST_TAG_CACHE_DISK_HIT__
    And   prompt A was served from the cache

  Scenario: Without write-through, the RAM cache reaches the disk on a graceful shutdown
    Then  the server is starting
    When  prompt A is evaluated
    And   prompt B is evaluated
    Then  the server log does not show __TEST_TAG_CACHE_DISK_STORE__
    And   the disk cache holds no files
    When  the server is stopped
    Then  the disk cache holds 1 file
    When  the server is starting
    And   prompt A is evaluated
    Then  the server log shows __TEST_TAG_CACHE_DISK_HIT__
    And   prompt A was served from the cache

  Scenario: A prompt that is in the RAM cache is loaded from RAM, not from the disk
    Given the disk cache writes through
    Then  the server is starting
    When  prompt A is evaluated
    And   prompt B is evaluated
    Then  the disk cache holds 1 file
    When  prompt A is evaluated
    Then  the server log does not show __TEST_TAG_CACHE_DISK_HIT__
    And   prompt A reused the cache

  # With SmolLM2-135M a token of KV state takes 22.5 KiB: a 100-token prompt makes a file of about
  # 2.2 MiB, so a 5 MiB budget holds two of them and the third store evicts the oldest.
  @model.smollm2-135m
  Scenario: The disk cache keeps within its limit by evicting the oldest files
    Given the disk cache writes through
    And   a disk cache limit of 5 MiB
    And   prompt L1 is the token 100 repeated 100 times
    And   prompt L2 is the token 101 repeated 100 times
    And   prompt L3 is the token 102 repeated 100 times
    Then  the server is starting
    When  prompt L1 is evaluated
    And   prompt L2 is evaluated
    And   prompt L3 is evaluated
    And   prompt B is evaluated
    Then  the disk cache holds at least 1 file
    And   the disk cache holds fewer than 3 files
    And   the disk cache stays within 5 MiB, or holds a single file
    # killed, not stopped: a graceful stop could write the RAM cache out again
    When  the server process is killed
    And   the server is starting
    And   prompt L3 is evaluated
    Then  prompt L3 was served from the cache
    When  prompt L1 is evaluated
    Then  prompt L1 was processed in full

  Scenario: A corrupted cache file is detected and deleted, and the prompt processed again
    Given the disk cache writes through
    Then  the server is starting
    When  prompt A is evaluated
    And   prompt B is evaluated
    Then  the disk cache holds 1 file
    When  the server is stopped
    And   the disk cache file is corrupted after its header
    And   the server is starting
    And   prompt A is evaluated
    Then  the server log does not show __TEST_TAG_CACHE_DISK_HIT__
    And   prompt A was processed in full
    And   the disk cache holds no files

  Scenario: A truncated cache file is detected and deleted, and the prompt processed again
    Given the disk cache writes through
    Then  the server is starting
    When  prompt A is evaluated
    And   prompt B is evaluated
    Then  the disk cache holds 1 file
    When  the server is stopped
    And   the disk cache file is truncated to half its size
    And   the server is starting
    And   prompt A is evaluated
    Then  the server log does not show __TEST_TAG_CACHE_DISK_HIT__
    And   prompt A was processed in full
    And   the disk cache holds no files

  Scenario: A cache file written under another configuration is left alone
    Given the disk cache writes through
    Then  the server is starting
    When  prompt A is evaluated
    And   prompt B is evaluated
    Then  the disk cache holds 1 file
    When  the server is stopped
    And   the disk cache files are recorded
    Given the server option --cache-type-k set to q8_0
    When  the server is starting
    And   prompt A is evaluated
    Then  the server log does not show __TEST_TAG_CACHE_DISK_HIT__
    And   prompt A was processed in full
    And   the disk cache files are unchanged

  Scenario: A disk cache directory that cannot be written is reported clearly
    Given a disk prompt cache directory that cannot be written
    When  the server start is attempted
    Then  the unusable disk cache directory is reported clearly

  Scenario: A store killed half-way leaves no partial cache file
    Given the disk cache writes through
    And   prompt L is the token 100 repeated 400 times
    Then  the server is starting
    When  prompt L is evaluated
    And   prompt B is evaluated
    Then  the disk cache holds 1 file
    When  the size of the disk cache file is recorded as complete
    And   the server is stopped
    And   the disk cache is emptied
    And   the server is starting
    And   prompt L is evaluated
    And   prompt B is sent and the server process is killed as soon as the disk cache starts writing
    Then  every disk cache file is complete

  @requires.mmproj
  Scenario: An image prompt is restored from the disk by a new server process
    Given a multimodal model with its projector
    And   the disk cache writes through
    And   the server option --swa-full
    And   prompt IMG is "What is this: {marker}" with an image
    And   prompt C is "The quick brown fox"
    Then  the server is starting
    When  prompt IMG is evaluated
    And   prompt C is evaluated
    Then  the disk cache holds 1 file
    When  the server is restarted
    And   prompt IMG is evaluated
    Then  the server log shows __TEST_TAG_CACHE_DISK_HIT__
    And   prompt IMG was served from the cache
